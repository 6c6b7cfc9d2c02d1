#include "strata/train/elementwise_metrics.hpp"

#include <cmath>
#include <utility>
#include <vector>

#include "strata/core/error.hpp"

namespace strata::train {
namespace {

// Whether `longer` is `shorter` with one more axis, of size 1, at the end.
bool with_trailing_one(const Shape& longer, const Shape& shorter) {
  return longer.size() == shorter.size() + 1 && longer.back() == 1 &&
         Shape(longer.begin(), longer.end() - 1) == shorter;
}

// One batch's outputs and targets as doubles, element by element, checked to pair up.
std::pair<std::vector<double>, std::vector<double>> paired_values(const Tensor& outputs, const Tensor& targets,
                                                                  const char* who) {
  STRATA_CHECK(outputs.defined() && targets.defined(), who, ": outputs and targets must be defined tensors");
  const Shape &out = outputs.shape(), &target = targets.shape();
  STRATA_CHECK(out == target || with_trailing_one(out, target) || with_trailing_one(target, out),
               who, ": outputs ", out.str(), " and targets ", target.str(),
               " must hold the same elements (equal shapes, or but for a trailing axis of 1)");
  return {outputs.detach().to(kCPU).to_vector<double>(), targets.detach().to(kCPU).to_vector<double>()};
}

}  // namespace

BinaryAccuracy::BinaryAccuracy(double threshold) : threshold_(threshold) {
  STRATA_CHECK(std::isfinite(threshold), "BinaryAccuracy: the threshold must be a finite number, got ", threshold);
}

void BinaryAccuracy::update(const Tensor& outputs, const Tensor& targets) {
  const auto [out, target] = paired_values(outputs, targets, "BinaryAccuracy");
  for (size_t i = 0; i < target.size(); ++i)
    STRATA_CHECK(target[i] == 0 || target[i] == 1, "BinaryAccuracy: targets must be 0 or 1, got ", target[i],
                 " at element ", i);
  for (size_t i = 0; i < out.size(); ++i) hits_.update((out[i] > threshold_) == (target[i] == 1) ? 1.0 : 0.0);
}

void ElementwiseErrorMean::update(const Tensor& outputs, const Tensor& targets) {
  const std::string who = name();
  const auto [out, target] = paired_values(outputs, targets, who.c_str());
  for (size_t i = 0; i < out.size(); ++i) errors_.update(error(out[i], target[i]));
}

double MeanAbsoluteError::error(double output, double target) const { return std::abs(output - target); }

double RootMeanSquaredError::error(double output, double target) const {
  return (output - target) * (output - target);
}

double RootMeanSquaredError::result() const { return std::sqrt(mean()); }

}  // namespace strata::train
