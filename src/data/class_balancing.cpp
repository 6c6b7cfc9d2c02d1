#include "strata/data/class_balancing.hpp"

#include <algorithm>
#include <map>

#include "strata/core/error.hpp"
#include "strata/core/factory.hpp"

namespace strata::data {

BalancedExamples class_balancing_oversample(const Tensor& x, const std::vector<int64_t>& labels) {
  STRATA_CHECK(x.defined() && x.dim() == 2 && x.size(0) == int64_t(labels.size()) && !labels.empty(),
               "class_balancing_oversample: expected x [N, D] with N >= 1 labels, got ",
               x.defined() ? x.shape().str() : "undefined", " and ", labels.size(), " labels");
  // Rows of each class in order, classes in order of first appearance.
  std::vector<int64_t> order;
  std::map<int64_t, std::vector<size_t>> rows;
  for (size_t i = 0; i < labels.size(); ++i) {
    auto& r = rows[labels[i]];
    if (r.empty()) order.push_back(labels[i]);
    r.push_back(i);
  }
  // Counter.most_common: by count, descending; a stable sort keeps first appearance among ties.
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return rows[a].size() > rows[b].size(); });
  const size_t largest = rows[order.front()].size();
  const int64_t d = x.size(1);
  const std::vector<double> v = x.to_vector<double>();
  BalancedExamples out;
  std::vector<double> balanced;
  balanced.reserve(order.size() * largest * size_t(d));
  for (int64_t label : order) {
    const auto& r = rows[label];
    for (size_t k = 0; k < largest; ++k) {
      const size_t row = r[k % r.size()];
      balanced.insert(balanced.end(), v.begin() + int64_t(row) * d, v.begin() + int64_t(row + 1) * d);
      out.labels.push_back(label);
    }
  }
  out.x = from_vector(balanced, {int64_t(order.size() * largest), d});
  return out;
}

}  // namespace strata::data
