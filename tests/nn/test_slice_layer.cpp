#include <gtest/gtest.h>

#include "nn/layer_check.hpp"

namespace strata {
namespace {

TEST(SliceLayerTest, KeepsTheRangeOfOneAxisAndPassesItsGradient) {
  const Tensor x = randn({2, 4, 5, 6});
  nn::Slice channels({.begin = 2, .end = 5});  // the last axis by default
  const Tensor y = channels(x);
  ASSERT_EQ(y.shape(), Shape({2, 4, 5, 3}));
  const std::vector<float> xv = x.to_vector<float>(), yv = y.to_vector<float>();
  for (int64_t p = 0; p < 2 * 4 * 5; ++p)
    for (int64_t k = 0; k < 3; ++k) ASSERT_EQ(yv[p * 3 + k], xv[p * 6 + 2 + k]);
  nn::Slice rows({.axis = 1, .begin = 1, .end = 4});
  EXPECT_TRUE(allclose(rows(x), narrow(x, 1, 1, 3), 0, 0));
  // The gradient reaches the kept elements only: checked against finite differences.
  nn::Slice middle({.axis = 2, .begin = 1, .end = 3});
  testing_nn::expect_gradcheck([&](const std::vector<Tensor>& v) { return middle(v[0]) * middle(v[0]); },
                               {randn({2, 3, 4}, kFloat64)});
  testing_nn::expect_error([&] { channels(randn({2, 4, 5, 4})); }, {channels.name(), "does not fit", "[2, 4, 5, 4]"});
  nn::Slice batch({.axis = 0, .begin = 0, .end = 1});
  testing_nn::expect_error([&] { batch(x); }, {batch.name(), "batch axis"});
  testing_nn::expect_error([] { nn::Slice({.begin = -1, .end = 2}, "bad"); }, {"bad (slice)", "begin"});
}

}  // namespace
}  // namespace strata
