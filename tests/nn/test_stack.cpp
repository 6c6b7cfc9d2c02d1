#include <gtest/gtest.h>

#include "nn/layer_check.hpp"

namespace strata {
namespace {

using testing_nn::expect_error;

TEST(StackTest, StacksAlongANewAxisAndUnStackSplitsBack) {
  Tensor a = randn({2, 3, 4}), b = randn({2, 3, 4}), c = randn({2, 3, 4});
  nn::Stack st;  // axis 1
  Tensor y = st({a, b, c});
  EXPECT_EQ(y.shape(), Shape({2, 3, 3, 4}));
  std::vector<float> yv = y.to_vector<float>();
  const std::vector<Tensor> in{a, b, c};
  for (int64_t n = 0; n < 2; ++n)
    for (int64_t k = 0; k < 3; ++k)
      for (int64_t i = 0; i < 3; ++i)
        for (int64_t j = 0; j < 4; ++j)
          ASSERT_EQ(yv[((n * 3 + k) * 3 + i) * 4 + j], in[k].to_vector<float>()[(n * 3 + i) * 4 + j]);
  EXPECT_EQ(nn::Stack(-1)({a, b}).shape(), Shape({2, 3, 4, 2}));

  nn::UnStack un(1);
  std::vector<Tensor> parts = un(y);
  ASSERT_EQ(parts.size(), 3u);
  for (size_t k = 0; k < 3; ++k) EXPECT_TRUE(allclose(parts[k], in[k], 0, 0));
  EXPECT_EQ(nn::unstack(y, -1).size(), 4u);
  EXPECT_EQ(nn::unstack(y, -1)[0].shape(), Shape({2, 3, 3}));

  // Gradients (finite differences, float64); modes do not matter.
  testing_nn::expect_gradcheck([&](const std::vector<Tensor>& v) { return st(v); },
                               {randn({2, 3}, kFloat64), randn({2, 3}, kFloat64), randn({2, 3}, kFloat64)});
  testing_nn::expect_gradcheck(
      [&](const std::vector<Tensor>& v) {
        std::vector<Tensor> p = un(v[0]);
        return p[0] * 2.0 + p[1] * p[2];
      },
      {randn({2, 3, 5}, kFloat64)});
  st.eval();
  EXPECT_TRUE(allclose(st({a, b, c}), y, 0, 0));

  expect_error([&] { st({a, b}); }, {st.name(), "3 inputs of one shape", "got 2"});
  expect_error([&] { st({a, b, randn({2, 3, 5})}); }, {st.name(), "[2, 3, 5]"});
  expect_error([] { nn::Stack(1, "s1")(randn({2, 3})); }, {"s1 (stack)", "list of inputs"});
  expect_error([] { nn::unstack(randn({2, 3}), 2); }, {"unstack", "axis 2", "[2, 3]"});
  nn::UnStack u2;
  nn::Layer& as_layer = u2;
  expect_error([&] { as_layer(randn({2, 3})); }, {u2.name(), "returns a list"});
}

}  // namespace
}  // namespace strata
