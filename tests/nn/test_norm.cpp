#include <gtest/gtest.h>

#include "nn/layer_check.hpp"

namespace strata {
namespace {

using testing_nn::expect_error;
using testing_nn::expect_gradcheck;
using testing_nn::expect_same_as;

TEST(NormTest, BatchNormInfersChannelsAndKeepsMovingStatisticsAsNonTrainable) {
  nn::BatchNorm2d bn;
  Tensor x = randn({4, 3, 3, 5});
  EXPECT_EQ(bn(x).shape(), x.shape());
  for (const Tensor& w : {bn.beta, bn.gamma, bn.moving_mean, bn.moving_var}) EXPECT_EQ(w.shape(), Shape({5}));
  EXPECT_EQ(bn.trainable_weights().size(), 2u);
  EXPECT_EQ(bn.nontrainable_weights().size(), 2u);
  auto named = bn.named_weights();  // TensorLayer's order
  ASSERT_EQ(named.size(), 4u);
  EXPECT_EQ(named[0].first, bn.name() + "/beta");
  EXPECT_EQ(named[1].first, bn.name() + "/gamma");
  EXPECT_EQ(named[2].first, bn.name() + "/moving_mean");
  EXPECT_EQ(named[3].first, bn.name() + "/moving_var");
  EXPECT_EQ(nn::BatchNorm1d()(randn({4, 6})).shape(), Shape({4, 6}));
  EXPECT_EQ(nn::BatchNorm1d()(randn({4, 2, 6})).shape(), Shape({4, 2, 6}));
  EXPECT_EQ(nn::BatchNorm3d()(randn({2, 2, 2, 2, 3})).shape(), Shape({2, 2, 2, 2, 3}));
}

TEST(NormTest, BatchNormTrainsOnBatchStatisticsAndEvaluatesOnMovingOnes) {
  nn::BatchNorm2d bn(/*decay=*/0.8);
  Tensor x = randn({4, 3, 3, 2}) * 2.0 + 1.0;
  Tensor y = bn(x);  // training: batch statistics
  Axes batch{0, 1, 2};
  Tensor mu = mean(x, batch), v = var(x, batch, /*correction=*/0);
  EXPECT_TRUE(allclose(y, (x - mu) / sqrt(v + 1e-5), 1e-4, 1e-4));
  // moving = decay * moving + (1 - decay) * batch, with the unbiased variance.
  EXPECT_TRUE(allclose(bn.moving_mean, mu * 0.2, 1e-5, 1e-5));
  EXPECT_TRUE(allclose(bn.moving_var, 0.8 + var(x, batch, 1) * 0.2, 1e-5, 1e-5));

  testing_nn::randomize(bn);
  bn.eval();
  Tensor mm = clone(bn.moving_mean), mv = clone(bn.moving_var);
  Tensor z = bn(x);
  EXPECT_TRUE(allclose(z, (x - mm) / sqrt(mv + 1e-5) * bn.gamma + bn.beta, 1e-4, 1e-4));
  EXPECT_TRUE(allclose(bn.moving_mean, mm, 0, 0));  // eval leaves the statistics alone
  EXPECT_TRUE(allclose(bn.moving_var, mv, 0, 0));
}

TEST(NormTest, BatchNormGradientsMatchTheFunctionalOp) {
  nn::BatchNorm bn(0.9, 1e-3, "relu");
  Tensor x = randn({3, 4, 5});
  bn(x);
  testing_nn::randomize(bn);
  expect_same_as(
      [&](const Tensor& t) { return bn(t); },
      [&](const Tensor& t) { return relu(batch_norm(t, bn.gamma, bn.beta, Tensor(), Tensor(), true, 0.1, 1e-3)); }, x,
      {bn.gamma, bn.beta}, 1e-4);
}

TEST(NormTest, BatchNormErrorsNameTheLayer) {
  nn::BatchNorm2d bn(0.9, 1e-5, {}, "bn_a");
  expect_error([&] { bn(randn({2, 4, 3})); }, {"bn_a", "[N, H, W, C]", "[2, 4, 3]"});
  bn(randn({2, 2, 2, 3}));
  expect_error([&] { bn(randn({2, 2, 2, 4})); }, {"bn_a", "3 channels", "[2, 2, 2, 4]"});
  expect_error([&] { nn::BatchNorm1d(0.9, 1e-5, {}, "bn1")(randn({2, 2, 2, 2})); }, {"bn1", "[N, C] or [N, W, C]"});
  expect_error([&] { nn::BatchNorm(0.9, 1e-5, {}, "declared", 4)(randn({2, 3})); }, {"declared", "4 channels"});
}

TEST(NormTest, LayerNormFollowsTensorLayersAxes) {
  // Defaults: normalise over every axis but the batch, gamma and beta per channel.
  nn::LayerNorm ln;
  Tensor x = randn({2, 3, 4});
  ln(x);
  EXPECT_EQ(ln.gamma.shape(), Shape({4}));
  EXPECT_EQ(ln.beta.shape(), Shape({4}));
  testing_nn::randomize(ln);
  auto manual = [&](const Tensor& t) {
    Tensor c = t - mean(t, {1, 2}, true);
    return c / sqrt(var(t, {1, 2}, 0, true) + 1e-12) * ln.gamma + ln.beta;
  };
  expect_same_as([&](const Tensor& t) { return ln(t); }, manual, x, {ln.gamma, ln.beta}, 1e-4);

  // Keras / PyTorch style: the last axis only, through the fused op.
  nn::LayerNorm last({}, 1e-5, /*begin_norm_axis=*/-1);
  last(x);
  testing_nn::randomize(last);
  expect_same_as([&](const Tensor& t) { return last(t); },
                 [&](const Tensor& t) { return layer_norm(t, {4}, last.gamma, last.beta, 1e-5); }, x,
                 {last.gamma, last.beta}, 1e-4);
  nn::LayerNorm bare({}, 1e-5, 1, -1, /*center=*/false, /*scale=*/false);
  bare(x);
  EXPECT_TRUE(bare.all_weights().empty());
}

TEST(NormTest, LayerNormErrorNamesTheLayer) {
  nn::LayerNorm ln({}, 1e-5, 1, -1, true, true, "ln");
  ln(randn({2, 3, 4}));
  expect_error([&] { ln(randn({2, 3, 5})); }, {"ln (layernorm)", "[2, 3, 5]", "[4]"});
  expect_error([&] { ln(randn({2, 4})); }, {"ln", "rank 3"});
}

TEST(NormTest, InstanceNormNormalisesEachSampleAndChannelOverSpace) {
  nn::InstanceNorm in;
  Tensor x = randn({2, 3, 4, 5}) * 3.0 + 2.0;
  Tensor y = in(x);
  EXPECT_EQ(in.gamma.shape(), Shape({5}));
  EXPECT_TRUE(allclose(mean(y, {1, 2}), zeros({2, 5}), 1e-5, 1e-5));
  EXPECT_TRUE(allclose(var(y, {1, 2}, 0), ones({2, 5}), 1e-3, 1e-3));
  testing_nn::randomize(in);
  expect_same_as([&](const Tensor& t) { return in(t); },
                 [&](const Tensor& t) { return nn::instance_norm(t, in.gamma, in.beta); }, x, {in.gamma, in.beta});
  Tensor w = randn({2, 3, 4, 3}, kFloat64);
  expect_gradcheck([&](const std::vector<Tensor>& v) { return nn::instance_norm(v[0], v[1], v[2]) * w; },
                   {randn({2, 3, 4, 3}, kFloat64), randn({3}, kFloat64), randn({3}, kFloat64)});
  expect_error([&] { in(randn({2, 3, 4, 6})); }, {in.name(), "5 channels", "[2, 3, 4, 6]"});
  expect_error([&] { nn::InstanceNorm({}, 1e-5, "flat")(randn({2, 5})); }, {"flat", "[N, spatial..., C]"});
}

TEST(NormTest, GroupNormSpansInstanceAndLayerNorm) {
  Tensor x = randn({2, 3, 3, 4});
  // One channel per group is instance norm; one group is layer norm over all but the batch.
  EXPECT_TRUE(allclose(nn::group_norm(x, 4), nn::instance_norm(x), 1e-4, 1e-4));
  EXPECT_TRUE(allclose(nn::group_norm(x, 1), layer_norm(x.reshape({2, 36}), {36}).reshape(x.shape()), 1e-4, 1e-4));
  nn::GroupNorm gn(2);
  Tensor y = gn(x);
  EXPECT_EQ(gn.gamma.shape(), Shape({4}));
  // Channels {0, 1} and {2, 3} of each sample are normalised together.
  Tensor g0 = slice(y, 3, 0, 2);
  EXPECT_TRUE(allclose(mean(g0, {1, 2, 3}), zeros({2}), 1e-5, 1e-5));
  testing_nn::randomize(gn);
  expect_same_as([&](const Tensor& t) { return gn(t); },
                 [&](const Tensor& t) { return nn::group_norm(t, 2, gn.gamma, gn.beta, 1e-5); }, x, {gn.gamma, gn.beta},
                 1e-4);
  Tensor w = randn({2, 2, 3, 4}, kFloat64);
  expect_gradcheck([&](const std::vector<Tensor>& v) { return nn::group_norm(v[0], 2, v[1], v[2]) * w; },
                   {randn({2, 2, 3, 4}, kFloat64), randn({4}, kFloat64), randn({4}, kFloat64)});
  expect_error([&] { gn(randn({2, 3, 3, 6})); }, {gn.name(), "4 channels"});
  expect_error([&] { nn::GroupNorm(3, {}, 1e-5, "g3")(randn({2, 4})); }, {"g3", "3 groups do not divide"});
}

}  // namespace
}  // namespace strata
