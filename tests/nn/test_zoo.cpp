// The model zoo: each model builds with its published parameter count, runs, and stops where
// end_with says; the dynamic VGG is the static one.
#include <gtest/gtest.h>

#include "support/expect_error.hpp"
#include "strata/nn/zoo/zoo.hpp"
#include "strata/strata.hpp"

namespace strata {
namespace {

double total(const Tensor& t) { return t.sum().item<double>(); }

// How many of a model's weights are batch-norm statistics (Keras's non-trainable parameters).
int64_t statistics(const nn::Layer& net) {
  int64_t n = 0;
  for (const Tensor& t : net.nontrainable_weights()) n += t.numel();
  return n;
}

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

// The dynamic VGG has the static one's layers, names and weight order: given the static
// model's weights it computes the same outputs.
TEST(ZooTest, DynamicVggIsTheStaticOne) {
  const Tensor x = randn({2, 32, 32, 3});
  for (int depth : {16, 19}) {
    SCOPED_TRACE(depth);
    auto fixed = depth == 16 ? nn::zoo::vgg16("pool4", {-1, 32, 32, 3}) : nn::zoo::vgg19("pool4", {-1, 32, 32, 3});
    nn::zoo::VGG dynamic(depth, "pool4");
    dynamic(x);  // builds the weights
    const auto want = fixed->named_weights(), got = dynamic.named_weights();
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) EXPECT_EQ(got[i].first, want[i].first);
    nn::assign_weights(dynamic, fixed->all_weights());
    const Tensor y = dynamic(x);
    EXPECT_EQ(y.shape(), Shape({2, 2, 2, 512}));
    EXPECT_TRUE(allclose(y, fixed->run({x})[0], 1e-5, 1e-6));
  }
  EXPECT_EQ(nn::zoo::VGG(19).name(), "vgg19");
}

TEST(ZooTest, DynamicVggRunsToTheSoftmax) {
  nn::zoo::VGG net(19);
  const Tensor y = net(randn({2, 32, 32, 3}));
  EXPECT_EQ(y.shape(), Shape({2, 1000}));
  EXPECT_NEAR(total(y), 2.0, 1e-4);
  // At 32x32 the first dense layer takes 1x1x512 features.
  EXPECT_EQ(net.count_params(), nn::zoo::vgg19("outputs", {-1, 32, 32, 3})->count_params());
  EXPECT_EQ(net.get_layer("fc1_relu").all_weights()[0].shape(), Shape({512, 4096}));
  testing::expect_error([] { nn::zoo::VGG(16, "fc3"); }, {"vgg16", "fc3"});
  testing::expect_error([] { nn::zoo::VGG(17); }, {"16 or 19", "17"});
}

// Keras applications' MobileNet (alpha 1.0, 224, include_top): 4,253,864, of which 21,888 are
// batch-norm statistics.
TEST(ZooTest, MobileNetHasThePublishedParameterCount) {
  auto net = nn::zoo::mobilenet_v1();
  EXPECT_EQ(net->count_params(), 4253864);
  EXPECT_EQ(statistics(*net), 21888);
  EXPECT_EQ(nn::Model::from_json(net->to_json())->count_params(), 4253864);
}

TEST(ZooTest, MobileNetRunsAndEndsWhereAsked) {
  auto net = nn::zoo::mobilenet_v1("predictions", {-1, 64, 64, 3});
  net->eval();
  const Tensor y = net->run({randn({2, 64, 64, 3})})[0];
  EXPECT_EQ(y.shape(), Shape({2, 1000}));
  EXPECT_NEAR(total(y), 2.0, 1e-4);
  // Stride 2 in conv1 and blocks 2, 4, 6 and 12: 64 -> 2.
  auto features = nn::zoo::mobilenet_v1("conv_pw_13_bn", {-1, 64, 64, 3});
  features->eval();
  EXPECT_EQ(features->run({randn({1, 64, 64, 3})})[0].shape(), Shape({1, 2, 2, 1024}));
  EXPECT_EQ(features->count_params(), 4253864 - (1024 * 1000 + 1000));
  // The odd size 7 takes Keras's padding (one after, then VALID): 7 -> 4 (conv1) -> 2 (block 2).
  auto odd = nn::zoo::mobilenet_v1("conv_dw_2", {-1, 7, 7, 3});
  EXPECT_EQ(odd->run({randn({1, 7, 7, 3})})[0].shape(), Shape({1, 2, 2, 64}));
  testing::expect_error([] { nn::zoo::mobilenet_v1("conv_dw_14"); }, {"mobilenet_v1", "conv_dw_14", "conv1"});
}

// SqueezeNet v1.1's count from its architecture: conv1 (3x3, 3 -> 64), fire modules
// (squeeze s, expand e = 4s each by 1x1 and 3x3, on c input channels) and conv10 (1x1 to 1000).
// It is torchvision's published num_params for squeezenet1_1, 1,235,496
// (torchvision/models/squeezenet.py, SqueezeNet1_1_Weights), which Keras ports of v1.1 share.
TEST(ZooTest, SqueezeNetHasThePublishedParameterCount) {
  auto fire = [](int64_t c, int64_t s) {
    const int64_t e = 4 * s;
    return (c * s + s) + (s * e + e) + (9 * s * e + e);
  };
  int64_t want = 3 * 9 * 64 + 64;
  int64_t c = 64;
  for (int64_t s : {16, 16, 32, 32, 48, 48, 64, 64}) {
    want += fire(c, s);
    c = 8 * s;
  }
  want += c * 1000 + 1000;
  EXPECT_EQ(want, 1235496);
  auto net = nn::zoo::squeezenet_v1();
  EXPECT_EQ(net->count_params(), want);
  EXPECT_EQ(nn::Model::from_json(net->to_json())->count_params(), want);
}

TEST(ZooTest, SqueezeNetRunsAndEndsWhereAsked) {
  auto net = nn::zoo::squeezenet_v1("out", {-1, 64, 64, 3});
  EXPECT_EQ(net->run({randn({2, 64, 64, 3})})[0].shape(), Shape({2, 1000}));
  // 64 -> 32 (conv1, SAME) -> 15 (maxpool1) -> 7 (fire3's pool); 2 * 4 * 16 channels.
  auto features = nn::zoo::squeezenet_v1("fire3", {-1, 64, 64, 3});
  EXPECT_EQ(features->run({randn({1, 64, 64, 3})})[0].shape(), Shape({1, 7, 7, 128}));
  EXPECT_NE(features->find("fire3.max"), nullptr);
  EXPECT_EQ(features->find("fire4.squeeze1x1"), nullptr);
  testing::expect_error([] { nn::zoo::squeezenet_v1("fire10"); }, {"squeezenet_v1", "fire10", "conv1 ... out"});
}

// Keras applications' ResNet50 (include_top): 25,636,712, of which 53,120 are batch-norm
// statistics.
TEST(ZooTest, ResNet50HasThePublishedParameterCountAndRuns) {
  auto net = nn::zoo::resnet50();
  EXPECT_EQ(net->count_params(), 25636712);
  EXPECT_EQ(statistics(*net), 53120);
  net->eval();
  const Tensor y = net->run({rand({1, 224, 224, 3})})[0];  // the one full-size forward
  EXPECT_EQ(y.shape(), Shape({1, 1000}));
  EXPECT_NEAR(total(y), 1.0, 1e-4);
}

TEST(ZooTest, ResNet50EndsWhereAsked) {
  // 64 -> 32 (conv1) -> 16 (pool1) -> 16 (conv2) -> 8 (conv3).
  auto features = nn::zoo::resnet50("conv3_block4_out", {-1, 64, 64, 3});
  EXPECT_EQ(features->run({randn({1, 64, 64, 3})})[0].shape(), Shape({1, 8, 8, 512}));
  EXPECT_NE(features->find("conv3_block1_0_conv"), nullptr);  // the projection shortcut
  EXPECT_EQ(features->find("conv3_block2_0_conv"), nullptr);   // identity shortcuts after it
  EXPECT_EQ(features->find("conv4_block1_1_conv"), nullptr);
  auto pooled = nn::zoo::resnet50("avg_pool", {-1, 64, 64, 3});
  EXPECT_EQ(pooled->run({randn({2, 64, 64, 3})})[0].shape(), Shape({2, 2048}));
  EXPECT_EQ(pooled->count_params(), 25636712 - (2048 * 1000 + 1000));
  testing::expect_error([] { nn::zoo::resnet50("conv3_block5_out"); }, {"resnet50", "conv3_block5_out"});
}

}  // namespace
}  // namespace strata
