// The model zoo: each model builds with its published parameter count and runs.
#include <gtest/gtest.h>

#include "expect_error.hpp"
#include "strata/nn/zoo/vgg.hpp"
#include "strata/strata.hpp"

namespace strata {
namespace {

// Published counts: Keras applications' VGG16 / VGG19 (include_top, 1000 classes).
TEST(ZooTest, VggHasThePublishedParameterCounts) {
  EXPECT_EQ(nn::zoo::vgg16()->count_params(), 138357544);
  EXPECT_EQ(nn::zoo::vgg19()->count_params(), 143667240);
}

TEST(ZooTest, VggEndsWhereAsked) {
  auto features = nn::zoo::vgg16("pool2", {-1, 32, 32, 3});
  Tensor y = features->run({randn({2, 32, 32, 3})})[0];
  EXPECT_EQ(y.shape(), Shape({2, 8, 8, 128}));
  EXPECT_EQ(features->count_params(), (3 * 9 * 64 + 64) + (64 * 9 * 64 + 64) + (64 * 9 * 128 + 128) +
                                           (128 * 9 * 128 + 128));
  testing::expect_error([] { nn::zoo::vgg16("conv9_9"); }, {"vgg16", "conv9_9"});
}

}  // namespace
}  // namespace strata
