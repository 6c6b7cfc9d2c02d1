// BinaryAccuracy, MeanAbsoluteError and RootMeanSquaredError against values worked out by hand,
// accumulated over batches; and BinaryAccuracy on a logistic regression trained by fit.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "blobs.hpp"
#include "support/expect_error.hpp"
#include "strata/core/error.hpp"
#include "strata/core/factory.hpp"
#include "strata/ops/loss.hpp"
#include "strata/optim/adam.hpp"
#include "strata/train/elementwise_metrics.hpp"
#include "strata/train/fit.hpp"

namespace strata::train {
namespace {

using strata::testing::expect_error;
TEST(ElementwiseMetricsTest, BinaryAccuracyThresholdsOutputsAcrossBatches) {
  BinaryAccuracy probabilities;  // threshold 0.5
  EXPECT_TRUE(std::isnan(probabilities.result()));
  // Predicted 1, 0, 1, 0 against 1, 0, 0, 0: three right. Outputs [4, 1] beside targets [4].
  probabilities.update(tensor({0.9f, 0.2f, 0.6f, 0.4f}, {4, 1}), tensor({1.f, 0.f, 0.f, 0.f}));
  EXPECT_DOUBLE_EQ(probabilities.result(), 0.75);
  // 0.5 is not above the threshold: predicted 0, right; 0.51 predicted 1, right. Int targets.
  probabilities.update(tensor({0.5f, 0.51f}), from_vector(std::vector<int64_t>{0, 1}));
  EXPECT_DOUBLE_EQ(probabilities.result(), 5.0 / 6.0);
  probabilities.reset();
  EXPECT_TRUE(std::isnan(probabilities.result()));

  BinaryAccuracy logits(0.0);
  logits.update(tensor({-1.f, 2.f, 0.5f}, {3, 1}), tensor({0.f, 0.f, 1.f}, {3, 1}));
  EXPECT_DOUBLE_EQ(logits.result(), 2.0 / 3.0);
  EXPECT_EQ(logits.name(), "binary_accuracy");
}

TEST(ElementwiseMetricsTest, ErrorsAreMeansOverEveryElementSeen) {
  MeanAbsoluteError mae;
  RootMeanSquaredError rmse;
  const Tensor out1 = tensor({1.f, -2.f, 3.5f}), target1 = tensor({0.f, 1.f, 3.f});
  mae.update(out1, target1);
  rmse.update(out1, target1);
  EXPECT_DOUBLE_EQ(mae.result(), 4.5 / 3);  // |1| + |-3| + |0.5|
  EXPECT_NEAR(rmse.result(), std::sqrt(10.25 / 3), 1e-12);  // 1 + 9 + 0.25
  // A batch with no error: the means take its element, and RMSE is the root of the whole mean
  // (sqrt(10.25 / 4)), not the mean of the two batches' roots.
  mae.update(tensor({2.f}, {1, 1}), tensor({2.f}));
  rmse.update(tensor({2.f}, {1, 1}), tensor({2.f}));
  EXPECT_DOUBLE_EQ(mae.result(), 4.5 / 4);
  EXPECT_NEAR(rmse.result(), std::sqrt(10.25 / 4), 1e-12);
  EXPECT_EQ(mae.name(), "mean_absolute_error");
  EXPECT_EQ(rmse.name(), "root_mean_squared_error");
  mae.reset();
  rmse.reset();
  EXPECT_TRUE(std::isnan(mae.result()) && std::isnan(rmse.result()));
}

TEST(ElementwiseMetricsTest, RefusesTargetsThatDoNotPairUp) {
  BinaryAccuracy accuracy;
  expect_error([&] { accuracy.update(tensor({0.9f, 0.2f}), tensor({1.f, 2.f})); }, {"must be 0 or 1, got 2"});
  expect_error([&] { accuracy.update(zeros({4}), zeros({3})); }, {"must hold the same elements"});
  MeanAbsoluteError mae;
  expect_error([&] { mae.update(zeros({4, 2}), zeros({4})); }, {"[4, 2]"});
  expect_error([] { BinaryAccuracy(std::nan("")); }, {"finite"});
}

TEST(ElementwiseMetricsTest, FitReportsBinaryAccuracyOfALogisticRegression) {
  manual_seed(3);
  const auto blobs = testing::make_blobs(200, 9);
  const Tensor y = cast(blobs.y, kFloat32).unsqueeze(1);  // [N, 1], like the logits
  nn::Dense net(1);
  net(blobs.x.narrow(0, 0, 1));
  optim::Adam adam(net.trainable_weights(), {.lr = 0.05});
  LossFn bce = [](const Tensor& logits, const Tensor& t) { return binary_cross_entropy_with_logits(logits, t); };
  const History h = fit(net, adam, bce, {blobs.x, y},
                        {.epochs = 5, .metrics = {std::make_shared<BinaryAccuracy>(0.0)}, .verbose = 0});
  EXPECT_GT(h["binary_accuracy"].back(), 0.95);
  // evaluate's figure is the same metric over the same rows, counted independently here.
  const Tensor logits = predict(net, blobs.x);
  const std::vector<float> out = logits.to_vector<float>();
  const std::vector<int64_t> labels = blobs.y.to_vector<int64_t>();
  int64_t right = 0;
  for (size_t i = 0; i < out.size(); ++i) right += (out[i] > 0) == (labels[i] == 1);
  const Logs logs = evaluate(net, bce, blobs.x, y, 32, {std::make_shared<BinaryAccuracy>(0.0)});
  EXPECT_DOUBLE_EQ(logs.at("binary_accuracy"), static_cast<double>(right) / 200);
}

}  // namespace
}  // namespace strata::train
