// Metrics that compare outputs with targets element by element, as Keras's BinaryAccuracy,
// MeanAbsoluteError and RootMeanSquaredError: for sigmoid classifiers and regression, where
// Accuracy's argmax over a class axis does not apply. Outputs and targets hold the same
// elements: equal shapes, or shapes that differ by one trailing axis of size 1 (a [N, 1] output
// beside [N] labels).
//   fit(net, adam, bce, data, {.metrics = {std::make_shared<train::BinaryAccuracy>(0.0)}});  // logits
#pragma once
#include <string>

#include "strata/train/metrics.hpp"

namespace strata::train {

// Fraction of elements where (output > threshold) equals the target, whose elements must be 0
// or 1 ("binary_accuracy"). threshold 0.5 for probabilities, 0 for logits.
class BinaryAccuracy : public Metric {
 public:
  explicit BinaryAccuracy(double threshold = 0.5);
  std::string name() const override { return "binary_accuracy"; }
  void update(const Tensor& outputs, const Tensor& targets) override;
  double result() const override { return hits_.result(); }
  void reset() override { hits_.reset(); }

 private:
  double threshold_;
  Mean hits_;  // 1 for each element right, 0 for each wrong
};

// The mean of error(output, target) over every element seen: what the error metrics share.
class ElementwiseErrorMean : public Metric {
 public:
  void update(const Tensor& outputs, const Tensor& targets) override;
  void reset() override { errors_.reset(); }

 protected:
  double mean() const { return errors_.result(); }  // NaN before any element

 private:
  virtual double error(double output, double target) const = 0;
  Mean errors_;
};

// Mean of |output - target| over every element seen ("mean_absolute_error").
class MeanAbsoluteError : public ElementwiseErrorMean {
 public:
  std::string name() const override { return "mean_absolute_error"; }
  double result() const override { return mean(); }

 private:
  double error(double output, double target) const override;
};

// Square root of the mean of (output - target)^2 over every element seen
// ("root_mean_squared_error"): the root of the whole mean, not a mean of per-batch roots.
class RootMeanSquaredError : public ElementwiseErrorMean {
 public:
  std::string name() const override { return "root_mean_squared_error"; }
  double result() const override;

 private:
  double error(double output, double target) const override;
};

}  // namespace strata::train
