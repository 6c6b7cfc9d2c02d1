// ConfusionMatrix: counts of (target class, predicted class) pairs over many batches, and the
// per-class and macro-averaged precision, recall and F1 read from them; Precision, Recall and
// F1Score are the macro averages as Metrics for fit().
//
// Macro averages follow scikit-learn (average="macro", zero_division=0): the mean over the
// classes that occur as a target or a prediction, a class's score being 0 where its
// denominator is 0.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "strata/train/metrics.hpp"

namespace strata::train {

class ConfusionMatrix {
 public:
  // num_classes = 0: taken from the outputs' last axis at the first update.
  explicit ConfusionMatrix(int64_t num_classes = 0);

  void update(const Tensor& outputs, const Tensor& targets);
  void reset();

  int64_t num_classes() const { return classes_; }
  // counts()[t][p]: samples of target class t predicted as p.
  const std::vector<std::vector<int64_t>>& counts() const { return counts_; }
  // An int64 tensor [classes, classes] of counts().
  Tensor matrix() const;
  int64_t total() const;

  double precision(int64_t cls) const;  // tp / (tp + fp), 0 when nothing is predicted as cls
  double recall(int64_t cls) const;     // tp / (tp + fn), 0 when cls never is a target
  double f1(int64_t cls) const;         // harmonic mean of the two, 0 when both are 0
  // NaN before any update.
  double macro_precision() const;
  double macro_recall() const;
  double macro_f1() const;

 private:
  int64_t predicted_as(int64_t cls) const;
  int64_t targets_of(int64_t cls) const;
  template <class Score>
  double macro(Score score) const;

  int64_t classes_;
  std::vector<std::vector<int64_t>> counts_;
};

// The macro-averaged precision, recall or F1 of a ConfusionMatrix, as Metrics.
class ConfusionMetric : public Metric {
 public:
  void update(const Tensor& outputs, const Tensor& targets) override { cm_.update(outputs, targets); }
  void reset() override { cm_.reset(); }
  const ConfusionMatrix& confusion_matrix() const { return cm_; }

 protected:
  explicit ConfusionMetric(int64_t num_classes) : cm_(num_classes) {}
  ConfusionMatrix cm_;
};

class Precision : public ConfusionMetric {
 public:
  explicit Precision(int64_t num_classes = 0) : ConfusionMetric(num_classes) {}
  std::string name() const override { return "precision"; }
  double result() const override { return cm_.macro_precision(); }
};

class Recall : public ConfusionMetric {
 public:
  explicit Recall(int64_t num_classes = 0) : ConfusionMetric(num_classes) {}
  std::string name() const override { return "recall"; }
  double result() const override { return cm_.macro_recall(); }
};

class F1Score : public ConfusionMetric {
 public:
  explicit F1Score(int64_t num_classes = 0) : ConfusionMetric(num_classes) {}
  std::string name() const override { return "f1"; }
  double result() const override { return cm_.macro_f1(); }
};

}  // namespace strata::train
