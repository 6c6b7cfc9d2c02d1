// Multi-class soft Dice and IoU losses (strata/ops/segmentation_losses.hpp): values against a
// plain double-precision loop over the pixels, gradients against finite differences, and the
// checks on bad labels.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "support/expect_error.hpp"
#include "strata/autograd/gradcheck.hpp"
#include "strata/strata.hpp"
#include "strata/ops/segmentation_losses.hpp"

namespace strata {
namespace {

// 1 - mean over classes of the class's soft Dice (or IoU) over every pixel, from the formula.
double seglosses_reference(const Tensor& logits, const Tensor& labels, bool iou, double smooth) {
  const std::vector<double> z = logits.to(kFloat64).to_vector<double>();
  const std::vector<int64_t> t = labels.to(kInt64).to_vector<int64_t>();
  const auto classes = static_cast<size_t>(logits.size(-1));
  std::vector<double> inter(classes, 0), p_sum(classes, 0), t_sum(classes, 0);
  for (size_t px = 0; px < t.size(); ++px) {
    double top = -1e300, total = 0;
    for (size_t c = 0; c < classes; ++c) top = std::max(top, z[px * classes + c]);
    for (size_t c = 0; c < classes; ++c) total += std::exp(z[px * classes + c] - top);
    for (size_t c = 0; c < classes; ++c) {
      const double p = std::exp(z[px * classes + c] - top) / total, hit = t[px] == static_cast<int64_t>(c) ? 1 : 0;
      inter[c] += p * hit;
      p_sum[c] += p;
      t_sum[c] += hit;
    }
  }
  double mean = 0;
  for (size_t c = 0; c < classes; ++c)
    mean += iou ? (inter[c] + smooth) / (p_sum[c] + t_sum[c] - inter[c] + smooth)
                : (2 * inter[c] + smooth) / (p_sum[c] + t_sum[c] + smooth);
  return 1 - mean / classes;
}

TEST(SegmentationLossesTest, MatchTheFormulaPerClassOverTheBatch) {
  manual_seed(3);
  const Tensor logits = 2.0 * randn({2, 5, 4, 3}, kFloat64);
  // Class 2 is missing from the labels: its term is smooth / (sum(p) + smooth).
  const Tensor labels = randint(0, 2, {2, 5, 4});
  for (double smooth : {1.0, 1e-3}) {
    EXPECT_NEAR(soft_dice_loss(logits, labels, smooth).item<double>(), seglosses_reference(logits, labels, false, smooth),
                1e-12);
    EXPECT_NEAR(soft_iou_loss(logits, labels, smooth).item<double>(), seglosses_reference(logits, labels, true, smooth),
                1e-12);
  }
  // Any rank with the classes last: one image of 7 pixels, int32 ids.
  const Tensor flat = randn({7, 4}, kFloat64), ids = randint(0, 4, {7}).to(kInt32);
  EXPECT_NEAR(soft_dice_loss(flat, ids).item<double>(), seglosses_reference(flat, ids, false, 1.0), 1e-12);
}

TEST(SegmentationLossesTest, AreNearZeroForConfidentCorrectLogitsAndNearOneForWrongOnes) {
  const Tensor labels = randint(0, 3, {2, 6, 6});
  // Each pixel's wrong class: the next one round.
  const Tensor others = from_vector(
      [&] {
        std::vector<int64_t> v = labels.to_vector<int64_t>();
        for (int64_t& id : v) id = (id + 1) % 3;
        return v;
      }(),
      labels.shape());
  const Tensor right = 30.0 * one_hot(labels, 3, kFloat64), wrong = 30.0 * one_hot(others, 3, kFloat64);
  EXPECT_LT(soft_dice_loss(right, labels, 1e-6).item<double>(), 1e-6);
  EXPECT_LT(soft_iou_loss(right, labels, 1e-6).item<double>(), 1e-6);
  EXPECT_GT(soft_dice_loss(wrong, labels, 1e-6).item<double>(), 1 - 1e-6);
  EXPECT_GT(soft_iou_loss(wrong, labels, 1e-6).item<double>(), 1 - 1e-6);
}

TEST(SegmentationLossesTest, GradientsMatchFiniteDifferences) {
  manual_seed(4);
  const Tensor labels = randint(0, 3, {2, 3, 3});
  Tensor logits = randn({2, 3, 3, 3}, kFloat64);
  logits.requires_grad_();
  for (bool iou : {false, true}) {
    SCOPED_TRACE(iou ? "iou" : "dice");
    const auto r = autograd::gradcheck(
        [&](const std::vector<Tensor>& v) { return iou ? soft_iou_loss(v[0], labels) : soft_dice_loss(v[0], labels); },
        {logits});
    EXPECT_TRUE(r.ok) << r.message;
  }
}

TEST(SegmentationLossesTest, RefuseBadLabels) {
  const Tensor logits = randn({2, 4, 4, 3});
  testing::expect_error([&] { soft_dice_loss(logits, randint(0, 3, {2, 4, 3})); },
                        {"soft_dice_loss", "[2, 4, 4]", "[2, 4, 3]"});
  testing::expect_error([&] { soft_iou_loss(logits, full({2, 4, 4}, 3, kInt64)); }, {"one_hot", "id 3"});
  testing::expect_error([&] { soft_iou_loss(logits, zeros({2, 4, 4})); }, {"soft_iou_loss", "int64 or int32"});
  testing::expect_error([&] { soft_dice_loss(logits, randint(0, 3, {2, 4, 4}), 0); }, {"soft_dice_loss", "smooth"});
  testing::expect_error([&] { soft_dice_loss(randn({4, 1}), zeros({4}, kInt64)); }, {"soft_dice_loss", "2 classes"});
}

}  // namespace
}  // namespace strata
