#include "strata/train/metrics.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "strata/core/error.hpp"
#include "strata/ops/reduce.hpp"
#include "strata/ops/sort.hpp"

namespace strata::train {

namespace detail {

std::vector<int64_t> target_ids(const Tensor& outputs, const Tensor& targets, const char* who) {
  STRATA_CHECK(outputs.defined() && targets.defined(), who, ": outputs and targets must be defined tensors");
  STRATA_CHECK(outputs.dim() >= 1, who, ": expected outputs of shape [..., classes], got a scalar");
  const Shape& out = outputs.shape();
  const int64_t classes = out.back();
  if (is_floating(targets.dtype())) {
    STRATA_CHECK(targets.shape() == out, who, ": one-hot or probability targets must have the outputs' shape ",
                 out.str(), ", got ", targets.shape().str());
    return argmax(targets.detach(), -1).to_vector<int64_t>();
  }
  const Shape rows(out.begin(), out.end() - 1);
  STRATA_CHECK(targets.shape() == rows, who, ": class-id targets must have shape ", rows.str(), " (outputs ",
               out.str(), " without the class axis), got ", targets.shape().str());
  std::vector<int64_t> ids = targets.to_vector<int64_t>();
  for (int64_t id : ids)
    STRATA_CHECK(id >= 0 && id < classes, who, ": target class ", id, " is outside [0, ", classes, ")");
  return ids;
}

ClassPairs class_pairs(const Tensor& outputs, const Tensor& targets, const char* who) {
  ClassPairs pairs;
  pairs.target = target_ids(outputs, targets, who);
  pairs.predicted = argmax(outputs.detach(), -1).to_vector<int64_t>();
  pairs.num_classes = outputs.size(-1);
  return pairs;
}

}  // namespace detail

namespace {
double ratio(int64_t num, int64_t den) {
  return den == 0 ? std::numeric_limits<double>::quiet_NaN() : static_cast<double>(num) / den;
}
}  // namespace

void Accuracy::update(const Tensor& outputs, const Tensor& targets) {
  const detail::ClassPairs p = detail::class_pairs(outputs, targets, "Accuracy");
  for (size_t i = 0; i < p.target.size(); ++i) correct_ += p.predicted[i] == p.target[i];
  total_ += static_cast<int64_t>(p.target.size());
}

double Accuracy::result() const { return ratio(correct_, total_); }

TopKAccuracy::TopKAccuracy(int64_t k) : k_(k) {
  STRATA_CHECK(k >= 1, "TopKAccuracy: k must be at least 1, got ", k);
}

void TopKAccuracy::update(const Tensor& outputs, const Tensor& targets) {
  const std::vector<int64_t> target = detail::target_ids(outputs, targets, "TopKAccuracy");
  // With k >= classes every sample counts as correct; topk needs k <= classes.
  const int64_t k = std::min(k_, outputs.size(-1));
  const std::vector<int64_t> top = topk(outputs.detach(), k, -1).indices.to_vector<int64_t>();
  for (size_t i = 0; i < target.size(); ++i) {
    const auto first = top.begin() + static_cast<std::ptrdiff_t>(i * k);
    correct_ += std::find(first, first + k, target[i]) != first + k;
  }
  total_ += static_cast<int64_t>(target.size());
}

double TopKAccuracy::result() const { return ratio(correct_, total_); }

void Mean::update(double value, double weight) {
  STRATA_CHECK(weight >= 0, "Mean: weight must be non-negative, got ", weight);
  sum_ += value * weight;
  weight_ += weight;
}

void Mean::update(const Tensor& values) {
  if (values.numel() == 0) return;
  update(values.detach().mean().item_double(), static_cast<double>(values.numel()));
}

double Mean::result() const {
  return weight_ == 0 ? std::numeric_limits<double>::quiet_NaN() : sum_ / weight_;
}

}  // namespace strata::train
