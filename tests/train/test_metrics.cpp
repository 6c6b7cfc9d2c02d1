// Metrics against values computed by hand (and, for precision/recall/F1, what scikit-learn's
// average="macro" gives on the same labels).
#include <gtest/gtest.h>

#include <cmath>

#include "strata/core/error.hpp"
#include "strata/core/factory.hpp"
#include "strata/ops/elementwise.hpp"
#include "strata/ops/indexing.hpp"
#include "strata/train/confusion_matrix.hpp"
#include "strata/train/metrics.hpp"

namespace strata::train {
namespace {

Tensor ids(const std::vector<int64_t>& values, const Shape& shape = {}) {
  return shape.empty() ? from_vector(values) : from_vector(values, shape);
}

// Logits whose argmax is `predicted` (one-hot rows scaled, classes on the last axis).
Tensor logits_for(const std::vector<int64_t>& predicted, int64_t classes) {
  return one_hot(from_vector(predicted), classes) * 3.0 - 1.0;
}

TEST(MetricsTest, AccuracyCountsArgmaxMatchesAcrossBatches) {
  Accuracy acc;
  EXPECT_TRUE(std::isnan(acc.result()));
  const Tensor logits = tensor({2.f, 1.f, 0.f, 0.f, 3.f, 1.f, 1.f, 0.f, 5.f, 4.f, 0.f, 1.f}, {4, 3});
  acc.update(logits, ids({0, 1, 1, 2}));  // argmax 0, 1, 2, 0: two right
  EXPECT_DOUBLE_EQ(acc.result(), 0.5);
  // One-hot float targets: classes 0, 1, 2, 0, all right.
  acc.update(logits, one_hot(ids({0, 1, 2, 0}), 3));
  EXPECT_DOUBLE_EQ(acc.result(), 6.0 / 8);
  acc.reset();
  EXPECT_TRUE(std::isnan(acc.result()));
  // Leading axes are samples too: [2, 2, 3] logits, [2, 2] targets.
  acc.update(logits.reshape({2, 2, 3}), ids({0, 0, 2, 0}, {2, 2}));
  EXPECT_DOUBLE_EQ(acc.result(), 0.75);
  EXPECT_EQ(acc.name(), "accuracy");
}

TEST(MetricsTest, AccuracyRejectsMismatchedTargets) {
  Accuracy acc;
  const Tensor logits = zeros({4, 3});
  EXPECT_THROW(acc.update(logits, ids({0, 1, 2})), Error);        // 3 targets for 4 rows
  EXPECT_THROW(acc.update(logits, ids({0, 1, 2, 3})), Error);     // class 3 of 3
  EXPECT_THROW(acc.update(logits, zeros({4, 2})), Error);                     // one-hot of 2 classes
}

TEST(MetricsTest, TopKAccuracyLooksAmongTheKLargest) {
  // Row ranks (largest first): r0: 1, 2, 0, 3; r1: 3, 0, 1, 2; r2: 0, 1, 2, 3.
  const Tensor logits =
      tensor({0.2f, 0.5f, 0.3f, 0.0f, 0.3f, 0.2f, 0.1f, 0.4f, 0.9f, 0.5f, 0.3f, 0.1f}, {3, 4});
  TopKAccuracy top2(2);
  EXPECT_EQ(top2.name(), "top2_accuracy");
  top2.update(logits, ids({2, 1, 0}));  // in top 2: yes, no, yes
  EXPECT_DOUBLE_EQ(top2.result(), 2.0 / 3);
  TopKAccuracy top1(1);
  top1.update(logits, ids({2, 1, 0}));  // only r2
  EXPECT_DOUBLE_EQ(top1.result(), 1.0 / 3);
  TopKAccuracy top9(9);  // k beyond the classes: all in
  top9.update(logits, ids({3, 2, 3}));
  EXPECT_DOUBLE_EQ(top9.result(), 1.0);
  EXPECT_THROW(TopKAccuracy(0), Error);
}

TEST(MetricsTest, MeanWeightsValues) {
  Mean m;
  EXPECT_TRUE(std::isnan(m.result()));
  m.update(1.0, 2);  // a batch of 2 with mean loss 1
  m.update(4.0, 1);
  EXPECT_DOUBLE_EQ(m.result(), 2.0);
  m.update(tensor({3.f, 5.f, 7.f}));  // three values of weight 1
  EXPECT_DOUBLE_EQ(m.result(), (2 + 4 + 15) / 6.0);
  EXPECT_DOUBLE_EQ(m.count(), 6);
  m.reset();
  EXPECT_TRUE(std::isnan(m.result()));
}

TEST(MetricsTest, ConfusionMatrixPrecisionRecallF1Macro) {
  // targets 0 0 1 1 2 2, predicted 0 1 1 1 2 0:
  //   counts [[1 1 0] [0 2 0] [1 0 1]]
  //   precision 1/2, 2/3, 1   recall 1/2, 1, 1/2   F1 1/2, 4/5, 2/3
  const std::vector<int64_t> target = {0, 0, 1, 1, 2, 2}, predicted = {0, 1, 1, 1, 2, 0};
  ConfusionMatrix cm;
  cm.update(logits_for({0, 1, 1}, 3), from_vector(std::vector<int64_t>(target.begin(), target.begin() + 3)));
  cm.update(logits_for({1, 2, 0}, 3), from_vector(std::vector<int64_t>(target.begin() + 3, target.end())));
  EXPECT_EQ(cm.num_classes(), 3);
  EXPECT_EQ(cm.total(), 6);
  EXPECT_EQ(cm.matrix().to_vector<int64_t>(), (std::vector<int64_t>{1, 1, 0, 0, 2, 0, 1, 0, 1}));
  EXPECT_DOUBLE_EQ(cm.precision(1), 2.0 / 3);
  EXPECT_DOUBLE_EQ(cm.recall(2), 0.5);
  EXPECT_DOUBLE_EQ(cm.f1(1), 0.8);
  EXPECT_NEAR(cm.macro_precision(), (0.5 + 2.0 / 3 + 1) / 3, 1e-12);
  EXPECT_NEAR(cm.macro_recall(), 2.0 / 3, 1e-12);
  EXPECT_NEAR(cm.macro_f1(), (0.5 + 0.8 + 2.0 / 3) / 3, 1e-12);

  Precision p;
  Recall r;
  F1Score f;
  for (Metric* m : std::initializer_list<Metric*>{&p, &r, &f}) m->update(logits_for(predicted, 3), from_vector(target));
  EXPECT_NEAR(p.result(), cm.macro_precision(), 1e-12);
  EXPECT_NEAR(r.result(), cm.macro_recall(), 1e-12);
  EXPECT_NEAR(f.result(), cm.macro_f1(), 1e-12);
  f.reset();
  EXPECT_TRUE(std::isnan(f.result()));
}

TEST(MetricsTest, MacroAveragesSkipClassesAbsentFromTheData) {
  // Four classes declared, class 3 never a target nor predicted: averages over 0..2 only.
  ConfusionMatrix cm(4);
  cm.update(logits_for({0, 1, 1, 2}, 4), ids({0, 1, 2, 2}));
  // precision 1, 1/2, 1; recall 1, 1, 1/2
  EXPECT_NEAR(cm.macro_precision(), 2.5 / 3, 1e-12);
  EXPECT_NEAR(cm.macro_recall(), 2.5 / 3, 1e-12);
  EXPECT_DOUBLE_EQ(cm.precision(3), 0.0);
  EXPECT_THROW(cm.update(zeros({2, 3}), ids({0, 1})), Error);  // 3 classes, not 4
  EXPECT_THROW(cm.precision(4), Error);
}

}  // namespace
}  // namespace strata::train
