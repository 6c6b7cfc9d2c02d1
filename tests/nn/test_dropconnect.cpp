#include <gtest/gtest.h>

#include "nn/layer_check.hpp"

namespace strata {
namespace {

using testing_nn::expect_error;

TEST(DropconnectDenseTest, TrainingDropsWeightsEvalIsDense) {
  const int64_t in = 40, units = 30;
  const double keep = 0.7;
  nn::DropconnectDense layer(units, keep, {}, "dc", /*seed=*/3);
  Tensor x = randn({5, in});
  EXPECT_EQ(layer(x).shape(), Shape({5, units}));
  EXPECT_EQ(layer.W.shape(), Shape({in, units}));
  testing_nn::randomize(layer);

  // With x = I, y - b is the weights the layer used: each element 0 or W / keep.
  Tensor eye = strata::eye(in);
  Tensor g = randn({in, units});
  layer.W.zero_grad();
  Tensor y = layer(eye);
  sum(y * g).backward();
  std::vector<float> used = (y - layer.b).detach().to_vector<float>(), w = layer.W.to_vector<float>(),
                     gw = layer.W.grad().to_vector<float>(), gv = g.to_vector<float>();
  int64_t dropped = 0;
  for (size_t i = 0; i < used.size(); ++i) {
    if (used[i] == 0.0f) {
      ++dropped;
      EXPECT_EQ(gw[i], 0.0f) << i;  // a dropped weight gets no gradient
    } else {
      EXPECT_NEAR(used[i], w[i] / keep, 1e-5) << i;
      EXPECT_NEAR(gw[i], gv[i] / keep, 1e-5) << i;
    }
  }
  EXPECT_NEAR(static_cast<double>(dropped) / used.size(), 1 - keep, 0.05);  // 1200 weights
  EXPECT_FALSE(allclose(layer(eye), y, 0, 0));  // a fresh mask each call

  layer.eval();
  testing_nn::expect_same_as([&](const Tensor& t) { return layer(t); },
                             [&](const Tensor& t) { return linear(t, layer.W, layer.b); }, x, {layer.W, layer.b});
  expect_error([] { nn::DropconnectDense(3, 0.0, {}, "dz"); }, {"dz (dropconnectdense)", "keep", "(0, 1]"});
  expect_error([&] { layer(randn({2, 3})); }, {"dc", "[..., 40]", "[2, 3]"});
}

}  // namespace
}  // namespace strata
