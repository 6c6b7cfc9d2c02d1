#include "strata/points/part_iou.hpp"

#include "strata/core/error.hpp"
#include "strata/core/factory.hpp"
#include "strata/ops/elementwise.hpp"

namespace strata::points {

PartIou part_mean_iou(const Tensor& logits, const Tensor& truth, const Tensor& categories,
                      const std::vector<PartRange>& ranges) {
  STRATA_CHECK(logits.defined() && truth.defined() && categories.defined() && logits.dim() == 3 && truth.dim() == 2 &&
                   categories.dim() == 1 && truth.size(0) == logits.size(0) && truth.size(1) == logits.size(1) &&
                   categories.size(0) == logits.size(0),
               "part_mean_iou: expected logits [N, P, parts], truth [N, P] and categories [N], got ",
               logits.defined() ? logits.shape().str() : "undefined", ", ", truth.defined() ? truth.shape().str() : "undefined",
               " and ", categories.defined() ? categories.shape().str() : "undefined");
  const int64_t n = logits.size(0), p = logits.size(1), parts = logits.size(2);
  for (const PartRange& r : ranges)
    STRATA_CHECK(r.count >= 1 && r.first >= 0 && r.first + r.count <= parts, "part_mean_iou: category '", r.name,
                 "' has parts ", r.first, " .. ", r.first + r.count - 1, " outside the logits' ", parts);
  const Tensor scores = cast(logits.detach(), kFloat64).contiguous();
  const std::vector<double> s = scores.to_vector<double>();
  const std::vector<int64_t> t = cast(truth, kInt64).contiguous().to_vector<int64_t>();
  const std::vector<int64_t> c = cast(categories, kInt64).contiguous().to_vector<int64_t>();
  std::vector<int64_t> predicted(static_cast<size_t>(n * p));
  std::vector<double> category_sum(ranges.size(), 0.0);
  std::vector<int64_t> category_shapes(ranges.size(), 0);
  double instance_sum = 0;
  for (int64_t i = 0; i < n; ++i) {
    STRATA_CHECK(c[i] >= 0 && c[i] < static_cast<int64_t>(ranges.size()), "part_mean_iou: shape ", i, " has category ",
                 c[i], ", outside the ", ranges.size(), " given");
    const PartRange& r = ranges[c[i]];
    std::vector<int64_t> both(static_cast<size_t>(r.count), 0), either(static_cast<size_t>(r.count), 0);
    for (int64_t q = 0; q < p; ++q) {
      const double* row = s.data() + (i * p + q) * parts + r.first;
      int64_t best = 0;
      for (int64_t k = 1; k < r.count; ++k)
        if (row[k] > row[best]) best = k;
      predicted[i * p + q] = r.first + best;
      const int64_t truth_part = t[i * p + q] - r.first;  // outside [0, count): a part of no range
      if (truth_part == best) {
        ++both[best], ++either[best];
      } else {
        ++either[best];
        if (truth_part >= 0 && truth_part < r.count) ++either[truth_part];
      }
    }
    double iou = 0;
    for (int64_t k = 0; k < r.count; ++k) iou += either[k] == 0 ? 1.0 : static_cast<double>(both[k]) / either[k];
    iou /= static_cast<double>(r.count);
    instance_sum += iou;
    category_sum[c[i]] += iou;
    ++category_shapes[c[i]];
  }
  PartIou out;
  out.instance_miou = n > 0 ? instance_sum / static_cast<double>(n) : 0.0;
  int64_t seen = 0;
  for (size_t k = 0; k < ranges.size(); ++k) {
    out.per_category.push_back(category_shapes[k] > 0 ? category_sum[k] / static_cast<double>(category_shapes[k]) : 0.0);
    if (category_shapes[k] > 0) out.class_miou += out.per_category.back(), ++seen;
  }
  if (seen > 0) out.class_miou /= static_cast<double>(seen);
  out.predictions = from_vector(predicted, {n, p});
  return out;
}

}  // namespace strata::points
