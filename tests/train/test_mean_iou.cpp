// Mean IoU (strata/train/mean_iou.hpp): each class's IoU against |pred ∩ truth| / |pred ∪ truth|
// counted pixel by pixel, classes absent from both left out of the mean, and the Metric.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "support/expect_error.hpp"
#include "strata/strata.hpp"
#include "strata/train/mean_iou.hpp"

namespace strata {
namespace {

TEST(MeanIouTest, ClassIouIsIntersectionOverUnionOfThePixelSets) {
  manual_seed(8);
  const Tensor scores = randn({3, 5, 5, 4}), truth = randint(0, 3, {3, 5, 5});  // class 3 never a target
  train::ConfusionMatrix cm;
  cm.update(scores, truth);
  const std::vector<int64_t> pred = argmax(scores, -1).to_vector<int64_t>(), t = truth.to_vector<int64_t>();
  double sum = 0;
  int present = 0;
  for (int64_t c = 0; c < 4; ++c) {
    int64_t inter = 0, uni = 0;
    for (size_t i = 0; i < t.size(); ++i) {
      inter += pred[i] == c && t[i] == c;
      uni += pred[i] == c || t[i] == c;
    }
    const double want = uni == 0 ? 0.0 : static_cast<double>(inter) / uni;
    EXPECT_DOUBLE_EQ(train::class_iou(cm, c), want) << "class " << c;
    if (uni > 0) {
      sum += want;
      ++present;
    }
  }
  EXPECT_DOUBLE_EQ(train::mean_iou(cm), sum / present);
  testing::expect_error([&] { train::class_iou(cm, 4); }, {"class_iou", "class 4", "[0, 4)"});
}

TEST(MeanIouTest, AClassAbsentFromTruthAndPredictionIsLeftOut) {
  // Two classes of three, every pixel right: IoU 1 for both, and the mean is 1, not 2 / 3.
  const Tensor truth = from_vector(std::vector<int64_t>{0, 1, 1, 0}, Shape{1, 2, 2});
  train::ConfusionMatrix cm(3);
  cm.update(one_hot(truth, 3), truth);
  EXPECT_DOUBLE_EQ(train::mean_iou(cm), 1.0);
  EXPECT_DOUBLE_EQ(train::class_iou(cm, 2), 0.0);
  EXPECT_TRUE(std::isnan(train::mean_iou(train::ConfusionMatrix(3))));
}

TEST(MeanIouTest, MetricAccumulatesOverBatchesAndResets) {
  manual_seed(9);
  const Tensor a = randn({2, 4, 4, 3}), b = randn({2, 4, 4, 3});
  const Tensor ta = randint(0, 3, {2, 4, 4}), tb = randint(0, 3, {2, 4, 4});
  train::MeanIou metric;
  metric.update(a, ta);
  metric.update(b, tb);
  train::ConfusionMatrix whole;
  whole.update(concat({a, b}, 0), concat({ta, tb}, 0));
  EXPECT_EQ(metric.name(), "mean_iou");
  EXPECT_DOUBLE_EQ(metric.result(), train::mean_iou(whole));
  metric.reset();
  EXPECT_TRUE(std::isnan(metric.result()));
}

}  // namespace
}  // namespace strata
