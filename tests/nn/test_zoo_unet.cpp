// The zoo's U-Net: its weight count from the architecture's formula, the output's size, named
// layers and skip concatenations, end_with, the saved config, and the checks.
#include <gtest/gtest.h>

#include "support/expect_error.hpp"
#include "strata/nn/zoo/zoo.hpp"
#include "strata/strata.hpp"

namespace strata {
namespace {

// One level's two 3x3 convolutions (from `from` channels to f, no bias: 9 in out each) and their
// batch norms (4 f each: gamma, beta and the two statistics).
int64_t unet_zoo_level_count(int64_t from, int64_t f) { return 9 * from * f + 4 * f + 9 * f * f + 4 * f; }

// Weights of a whole U-Net counted level by level: the up-sampling is 4 in out + out (transposed
// 2x2) or 9 in out + out (resize and 3x3), the 1x1 logits c0 k + k.
int64_t unet_zoo_expected_count(int64_t in, int64_t width, int64_t depth, int64_t classes, bool transposed) {
  int64_t n = 0, from = in;
  for (int64_t l = 0; l <= depth; ++l) {  // the contracting levels and the bottom
    n += unet_zoo_level_count(from, width << l);
    from = width << l;
  }
  for (int64_t l = depth - 1; l >= 0; --l) {
    const int64_t f = width << l;
    n += (transposed ? 4 : 9) * from * f + f + unet_zoo_level_count(2 * f, f);
    from = f;
  }
  return n + from * classes + classes;
}

TEST(ZooUNetTest, HasTheArchitecturesWeightCount) {
  // The paper's U-Net (depth 4, width 64) on one-channel images with 2 classes.
  EXPECT_EQ(nn::zoo::unet("logits", {-1, 64, 64, 1})->count_params(), unet_zoo_expected_count(1, 64, 4, 2, true));
  EXPECT_EQ(nn::zoo::unet("logits", {-1, 32, 32, 3}, {.classes = 4, .depth = 2, .width = 8, .transposed = false})
                ->count_params(),
            unet_zoo_expected_count(3, 8, 2, 4, false));
}

TEST(ZooUNetTest, GivesClassScoresAtTheInputsSize) {
  auto net = nn::zoo::unet("logits", {-1, 24, 40, 1}, {.classes = 3, .depth = 3, .width = 4});
  const Tensor y = net->run({randn({2, 24, 40, 1})})[0];
  EXPECT_EQ(y.shape(), Shape({2, 24, 40, 3}));
  EXPECT_EQ(net->get_layer("down3_pool").name(), "down3_pool");
  EXPECT_EQ(net->get_layer("up1_concat").name(), "up1_concat");
  EXPECT_EQ(net->get_layer("bottom_conv2").all_weights()[0].shape(), Shape({3, 3, 32, 32}));
  EXPECT_EQ(net->get_layer("up3_upconv").all_weights()[0].shape(), Shape({2, 2, 16, 32}));  // [kh, kw, out, in]
  // The skip: up1's first convolution reads the up-sampled 4 channels and down1's 4.
  EXPECT_EQ(net->get_layer("up1_conv1").all_weights()[0].shape(), Shape({3, 3, 8, 4}));
  EXPECT_EQ(net->get_layer("logits").all_weights()[0].shape(), Shape({1, 1, 4, 3}));
}

// end_with keeps the layers up to it: at the bottom, the contracting path alone.
TEST(ZooUNetTest, EndsWhereAsked) {
  auto encoder = nn::zoo::unet("bottom_bn2", {-1, 32, 32, 1}, {.depth = 2, .width = 4});
  EXPECT_EQ(encoder->run({randn({2, 32, 32, 1})})[0].shape(), Shape({2, 8, 8, 16}));
  EXPECT_EQ(encoder->count_params(), unet_zoo_level_count(1, 4) + unet_zoo_level_count(4, 8) + unet_zoo_level_count(8, 16));
  testing::expect_error([] { nn::zoo::unet("softmax", {-1, 32, 32, 1}); }, {"unet", "end_with 'softmax'"});
}

TEST(ZooUNetTest, ConfigRebuildsTheModel) {
  auto net = nn::zoo::unet("logits", {-1, 16, 16, 1}, {.classes = 2, .depth = 2, .width = 4, .transposed = false});
  auto again = nn::Model::from_json(net->to_json());
  EXPECT_EQ(again->count_params(), net->count_params());
  nn::assign_weights(*again, net->all_weights());
  net->eval();
  again->eval();
  const Tensor x = randn({2, 16, 16, 1});
  EXPECT_TRUE(allclose(again->run({x})[0], net->run({x})[0], 1e-5, 1e-6));
}

TEST(ZooUNetTest, RefusesBadOptionsAndInputs) {
  testing::expect_error([] { nn::zoo::unet("logits", {-1, 36, 32, 1}, {.depth = 3}); }, {"unet", "multiples of 8", "[-1, 36, 32, 1]"});
  testing::expect_error([] { nn::zoo::unet("logits", {-1, 32, 32, 1}, {.classes = 1}); }, {"unet", "classes", "1"});
  testing::expect_error([] { nn::zoo::unet("logits", {-1, 512, 512, 1}, {.depth = 9}); }, {"unet", "depth", "9"});
  testing::expect_error([] { nn::zoo::unet("logits", {-1, 32, 32, 1}, {.width = 0}); }, {"unet", "width", "0"});
  testing::expect_error([] { nn::zoo::unet("logits", {-1, 32, 32}); }, {"unet", "[-1, H, W, C]", "[-1, 32, 32]"});
}

}  // namespace
}  // namespace strata
