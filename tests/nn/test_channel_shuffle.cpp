#include <gtest/gtest.h>

#include "nn/layer_check.hpp"

namespace strata {
namespace {

TEST(ShuffleTest, ChannelShuffleMatchesIndexLoop) {
  const int64_t groups = 3, c = 12, per = c / groups;
  nn::Shuffle sh(groups);
  Tensor x = randn({2, 4, 5, c});
  Tensor y = sh(x);
  ASSERT_EQ(y.shape(), x.shape());
  std::vector<float> xv = x.to_vector<float>(), yv = y.to_vector<float>();
  for (int64_t p = 0; p < 2 * 4 * 5; ++p)
    for (int64_t g = 0; g < groups; ++g)
      for (int64_t k = 0; k < per; ++k) ASSERT_EQ(yv[p * c + k * groups + g], xv[p * c + g * per + k]);
  // Shuffling by `per` groups undoes shuffling by `groups`.
  EXPECT_TRUE(allclose(nn::channel_shuffle(y, per), x, 0, 0));
  testing_nn::expect_gradcheck([](const std::vector<Tensor>& v) { return nn::channel_shuffle(v[0], 2) * v[0]; },
                               {randn({3, 2, 6}, kFloat64)});
  sh.eval();
  EXPECT_TRUE(allclose(sh(x), y, 0, 0));
  testing_nn::expect_error([&] { sh(randn({2, 4, 5, 10})); }, {sh.name(), "divisible by 3", "[2, 4, 5, 10]"});
  testing_nn::expect_error([] { nn::Shuffle(0, "sz"); }, {"sz (shuffle)", "groups"});
}

}  // namespace
}  // namespace strata
