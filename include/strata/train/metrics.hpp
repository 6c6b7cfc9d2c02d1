// Metrics: small accumulators of a model's quality over many batches, as Keras's metrics:
// update(outputs, targets) once per batch, result() at any time (NaN before any update),
// reset() to start again. fit() runs the ones in FitOptions::metrics on every batch.
//   train::Accuracy acc;
//   for (auto& [x, y] : batches) acc.update(model(x), y);
//   double a = acc.result();
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "strata/core/tensor.hpp"

namespace strata::train {

// A metric of (outputs, targets) pairs. Classification metrics take outputs [..., C] (logits
// or probabilities: only their order matters) and targets of int class ids [...] or one-hot /
// probability rows [..., C] (their argmax is the class).
class Metric {
 public:
  virtual ~Metric() = default;
  // The key in logs and History ("accuracy"; validation adds "val_").
  virtual std::string name() const = 0;
  virtual void update(const Tensor& outputs, const Tensor& targets) = 0;
  virtual double result() const = 0;
  virtual void reset() = 0;
};

using MetricList = std::vector<std::shared_ptr<Metric>>;

// Fraction of samples whose largest output is at the target class.
class Accuracy : public Metric {
 public:
  std::string name() const override { return "accuracy"; }
  void update(const Tensor& outputs, const Tensor& targets) override;
  double result() const override;
  void reset() override { correct_ = total_ = 0; }

 private:
  int64_t correct_ = 0, total_ = 0;
};

// Fraction of samples whose target class is among the k largest outputs ("top5_accuracy").
class TopKAccuracy : public Metric {
 public:
  explicit TopKAccuracy(int64_t k = 5);
  std::string name() const override { return "top" + std::to_string(k_) + "_accuracy"; }
  void update(const Tensor& outputs, const Tensor& targets) override;
  double result() const override;
  void reset() override { correct_ = total_ = 0; }

 private:
  int64_t k_;
  int64_t correct_ = 0, total_ = 0;
};

// A weighted running mean of values, e.g. of a loss over batches of different sizes.
class Mean {
 public:
  void update(double value, double weight = 1);
  // All elements of `values` (e.g. per-sample losses), each of weight 1.
  void update(const Tensor& values);
  double result() const;  // NaN before any update
  double count() const { return weight_; }
  void reset() { sum_ = weight_ = 0; }

 private:
  double sum_ = 0, weight_ = 0;
};

namespace detail {
// Predicted and target class ids of one batch, flattened, checked against each other; `who`
// names the metric in errors. num_classes is outputs.size(-1).
struct ClassPairs {
  std::vector<int64_t> predicted, target;
  int64_t num_classes = 0;
};
ClassPairs class_pairs(const Tensor& outputs, const Tensor& targets, const char* who);
// Target class ids only (int ids as given, one-hot rows by argmax), checked against outputs.
std::vector<int64_t> target_ids(const Tensor& outputs, const Tensor& targets, const char* who);
}  // namespace detail

}  // namespace strata::train
