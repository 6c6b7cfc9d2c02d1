// Pretrained weights for zoo models (interop::load_pretrained) from files Python wrote
// (make_zoo_weights.py, at test time): a Keras .h5 of MobileNet by layer name, checked against
// the file's values and a NumPy forward pass, and a TensorLayer .npz of SqueezeNetV1 by order.
#include <gtest/gtest.h>

#include <algorithm>

#include "strata/io/npz.hpp"
#include "strata/interop/pretrained.hpp"
#include "strata/interop/weight_files.hpp"
#include "strata/nn/zoo/zoo.hpp"
#include "strata/strata.hpp"
#include "support/expect_error.hpp"
#include "support/python_script.hpp"
#include "support/temp_dir.hpp"

namespace strata {
namespace {

class ZooPretrainedTest : public testing::TempDirTest {
 protected:
  void SetUp() override {
    TempDirTest::SetUp();
    const int rc = testing::run_python_script("nn/make_zoo_weights.py", "'" + dir_.string() + "'");
    if (rc == 77) GTEST_SKIP() << "python3 with numpy and h5py is missing";
    ASSERT_EQ(rc, 0) << "make_zoo_weights.py failed";
  }
  Tensor reference(const std::string& key) const {
    for (auto& [n, t] : io::load_npz(path("mobilenet_ref.npz")))
      if (n == key) return t;
    throw Error("no reference '" + key + "'");
  }
};

Tensor weight(const nn::Layer& net, const std::string& name) {
  for (auto& [n, t] : net.named_weights())
    if (n == name) return t;
  throw Error("no weight '" + name + "'");
}

TEST_F(ZooPretrainedTest, KerasMobileNetLoadsByName) {
  auto net = nn::zoo::mobilenet_v1();
  EXPECT_EQ(interop::load_pretrained(*net, path("mobilenet_v1.h5")), net->all_weights().size());
  // The depthwise kernels, batch norm's order (Keras stores gamma first) and the top, as
  // NumPy wrote them.
  for (const char* key : {"conv1.W", "conv_dw_5.W", "conv_pw_13_bn.beta", "conv_pw_13_bn.gamma",
                          "conv_pw_13_bn.moving_var", "conv_preds.W", "conv_preds.b"}) {
    std::string name = key;
    std::replace(name.begin(), name.end(), '.', '/');
    SCOPED_TRACE(name);
    EXPECT_TRUE(allclose(weight(*net, name), reference(key), 0, 0));
  }
  net->eval();
  const Tensor y = net->run({rand({1, 224, 224, 3})})[0];
  EXPECT_EQ(y.shape(), Shape({1, 1000}));
  EXPECT_NEAR(y.sum().item<double>(), 1.0, 1e-4);
}

// The model cut short takes only its own layers from the full file, and computes what NumPy
// computes with Keras's equations (SAME and Keras's stride-2 padding, epsilon 1e-3, ReLU6).
TEST_F(ZooPretrainedTest, KerasMobileNetFeaturesMatchNumPy) {
  auto features = nn::zoo::mobilenet_v1("conv_pw_2_bn", {-1, 16, 16, 3});
  EXPECT_EQ(interop::load_pretrained(*features, path("mobilenet_v1.h5")), 5u + 5 * 4);
  features->eval();
  const Tensor want = reference("features");
  EXPECT_GT(abs(want).sum().item<double>(), 1.0);  // not all clipped to zero
  EXPECT_TRUE(allclose(features->run({reference("x")})[0], want, 1e-4, 1e-5));
}

TEST_F(ZooPretrainedTest, TensorLayerSqueezeNetLoadsByOrder) {
  const std::vector<Tensor> params = io::load_npz_list(path("squeezenet_v1.npz"));
  ASSERT_EQ(params.size(), 52u);
  auto net = nn::zoo::squeezenet_v1("out", {-1, 64, 64, 3});
  EXPECT_EQ(interop::load_pretrained(*net, path("squeezenet_v1.npz")), 52u);
  const auto weights = net->all_weights();
  for (size_t i = 0; i < weights.size(); ++i) EXPECT_TRUE(allclose(weights[i], params[i], 0, 0)) << i;
  EXPECT_EQ(net->run({rand({1, 64, 64, 3})})[0].shape(), Shape({1, 1000}));
  // Cut short after fire2: conv1 and fire2's three convolutions, the list's first 8.
  auto front = nn::zoo::squeezenet_v1("fire2", {-1, 64, 64, 3});
  EXPECT_EQ(interop::load_pretrained(*front, path("squeezenet_v1.npz")), 8u);
  EXPECT_TRUE(allclose(front->get_layer("fire2.expand3x3").all_weights()[0], params[6], 0, 0));
}

// Keras's applications name VGG's convolutions block<b>_conv<c>, the zoo conv<b>_<c>: a file
// written by a model with Keras's names loads into the static and the dynamic zoo VGG.
TEST_F(ZooPretrainedTest, KerasVggNamesLoadIntoTheZooVgg) {
  const nn::Symbol x = nn::Input({-1, 8, 8, 3});
  nn::Symbol h = nn::Conv2d(64, {3, 3}, "relu", nn::Conv2d::same_padding(), "block1_conv1")(x);
  h = nn::Conv2d(64, {3, 3}, "relu", nn::Conv2d::same_padding(), "block1_conv2")(h);
  nn::Model keras(x, h, "keras_vgg");
  interop::save_keras_hdf5(keras, path("keras_vgg.h5"));

  auto static_vgg = nn::zoo::vgg16("conv1_2", {-1, 8, 8, 3});
  nn::zoo::VGG dynamic_vgg(16, "conv1_2");
  dynamic_vgg(zeros({1, 8, 8, 3}));
  for (nn::Layer* net : {static_cast<nn::Layer*>(static_vgg.get()), static_cast<nn::Layer*>(&dynamic_vgg)}) {
    EXPECT_EQ(interop::load_pretrained(*net, path("keras_vgg.h5")), 4u);
    EXPECT_TRUE(allclose(weight(*net, "conv1_1/W"), weight(keras, "block1_conv1/W"), 0, 0));
    EXPECT_TRUE(allclose(weight(*net, "conv1_2/b"), weight(keras, "block1_conv2/b"), 0, 0));
  }
}

TEST_F(ZooPretrainedTest, WrongFilesAreRefused) {
  auto vgg = nn::zoo::vgg16("pool1", {-1, 32, 32, 3});  // no layer name in common with MobileNet
  testing::expect_error([&] { interop::load_pretrained(*vgg, path("mobilenet_v1.h5")); },
                        {"mobilenet_v1.h5", "has no weight 'conv1_1/W'", "vgg16", "0 of 4"});
  auto resnet = nn::zoo::resnet50();  // conv1_bn in both, of other sizes
  testing::expect_error([&] { interop::load_pretrained(*resnet, path("mobilenet_v1.h5")); },
                        {"mobilenet_v1.h5", "conv1_bn/beta", "[64]", "[32]"});
  testing::expect_error([&] { interop::load_pretrained(*resnet, path("squeezenet_v1.npz")); },
                        {"squeezenet_v1.npz", "52", "resnet50"});
  testing::expect_error([&] { interop::load_pretrained(*resnet, path("weights.pt")); }, {"weights.pt", ".npz", ".h5"});
}

}  // namespace
}  // namespace strata
