// Export: every example and zoo model, and a model of each exported layer, run by onnxruntime
// gives Strata's outputs (tolerance 1e-4); a layer without an ONNX form is refused by name.
#include <gtest/gtest.h>

#include <strata/nn/zoo/zoo.hpp>
#include <strata/onnx/onnx.hpp>
#include <strata/strata.hpp>

#include "../../examples/fashion_mnist_cnn_net.hpp"
#include "expect_error.hpp"
#include "onnx/onnx_runtime.hpp"

using namespace strata;
using strata::testing::expect_close;

namespace {

// Batch norms with moving statistics other than 0 and 1, so that the export of them is tested.
void randomize_batch_norms(nn::Model& model) {
  Generator gen(7);
  for (auto& [name, t] : model.named_weights()) {
    const bool var = name.ends_with("/moving_var"), mean = name.ends_with("/moving_mean") || name.ends_with("/beta");
    if (!var && !mean && !name.ends_with("/gamma")) continue;
    Tensor r = rand(t.shape(), {}, &gen);
    float* d = t.data<float>();
    const std::vector<float> v = r.to_vector<float>();
    for (size_t i = 0; i < v.size(); ++i) d[i] = var ? 0.5f + v[i] : mean ? v[i] - 0.5f : 0.5f + v[i];
  }
}

// He-scaled filters (std sqrt(2 / fan-in)), so that deep zoo models' outputs stay large enough
// to compare: their default initializers shrink a random image to nothing over 20 layers.
void he_scale(nn::Model& model) {
  Generator gen(3);
  for (auto& [name, t] : model.named_weights()) {
    if (!name.ends_with("/W") || t.dim() < 2) continue;
    const nn::Layer& layer = model.get_layer(name.substr(0, name.find('/')));
    const int64_t fan_out = layer.kind() == "depthwiseconv2d" ? t.size(-1) * t.size(-2) : t.size(-1);
    const double scale = std::sqrt(2.0 * fan_out / static_cast<double>(t.numel()));
    const std::vector<float> v = randn(t.shape(), {}, &gen).to_vector<float>();
    float* d = t.data<float>();
    for (size_t i = 0; i < v.size(); ++i) d[i] = static_cast<float>(v[i] * scale);
  }
}

// Exports `model`, runs it in onnxruntime and compares every output with Strata's.
void check_export(nn::Model& model, const std::vector<Tensor>& inputs, const std::string& name) {
  if (strata::testing::onnx_python().empty()) GTEST_SKIP() << "onnx and onnxruntime could not be installed from PyPI (offline?)";
  model.eval();
  const auto dir = strata::testing::onnx_temp_dir(name);
  const auto path = dir / (name + ".onnx");
  model.export_onnx(path.string());
  const std::vector<Tensor> expected = model.run(inputs);
  const std::vector<Tensor> got = strata::testing::onnxruntime_outputs(path, inputs);
  ASSERT_EQ(got.size(), expected.size());
  for (size_t i = 0; i < got.size(); ++i) expect_close(got[i], expected[i], name + " output " + std::to_string(i));
  std::filesystem::remove_all(dir);
}

Tensor images(const Shape& shape) {
  Generator gen(1);
  return randn(shape, {}, &gen);
}

}  // namespace

TEST(OnnxExport, FashionMnistCnnExample) {
  nn::Model net = fashion_mnist_cnn_static();
  check_export(net, {images({3, 28, 28, 1})}, "cnn");
}

TEST(OnnxExport, FashionMnistMlpExample) {
  // examples/fashion_mnist_mlp.cpp's static_mlp.
  auto x = nn::Input({-1, 784}, "pixels");
  auto h = nn::Dropout(0.3)(nn::Dense(800, nn::relu)(x));
  h = nn::Dropout(0.3)(nn::Dense(800, nn::relu)(h));
  nn::Model net(x, nn::Dense(10)(h), "mlp_static");
  check_export(net, {images({4, 784})}, "mlp");
}

TEST(OnnxExport, ZooMobileNet) {
  // Up to the classifier: a softmax over 1000 classes of random weights is ~1e-3 everywhere,
  // too flat for a 1e-4 comparison to see anything (the classifier's 1x1 conv, reshape and
  // softmax are exported in the other tests).
  auto net = nn::zoo::mobilenet_v1("dropout", {-1, 32, 32, 3});
  he_scale(*net);
  randomize_batch_norms(*net);
  check_export(*net, {images({2, 32, 32, 3})}, "mobilenet");
}

TEST(OnnxExport, ZooSqueezeNet) {
  auto net = nn::zoo::squeezenet_v1("out", {-1, 64, 64, 3});
  he_scale(*net);
  check_export(*net, {images({2, 64, 64, 3})}, "squeezenet");
}

TEST(OnnxExport, ZooResNet50) {
  auto net = nn::zoo::resnet50("predictions", {-1, 32, 32, 3});
  randomize_batch_norms(*net);
  check_export(*net, {images({1, 32, 32, 3})}, "resnet50");
}

TEST(OnnxExport, ZooVgg16) {
  auto net = nn::zoo::vgg16("outputs", {-1, 32, 32, 3});
  he_scale(*net);
  check_export(*net, {images({1, 32, 32, 3})}, "vgg16");
}

// Each layer class the exporter knows, with both layouts meeting at merges and every
// activation name.
TEST(OnnxExport, LayerCoverage) {
  using namespace nn;
  auto x = Input({-1, 12, 10, 3}, "image");
  auto a = Conv2d(8, {3, 3}, "lrelu0.1", ConvOptions{.stride = {2}, .padding = Padding::same()})(x);
  a = BatchNorm(0.9, 1e-3, "relu6")(a);
  auto b = DepthwiseConv2d({3, 3}, "swish", ConvOptions{.padding = Padding::explicit_({1, 0}, {1, 2})}, 2)(x);
  b = MeanPool2d({2, 2}, {.stride = {2}, .padding = Padding::same()})(b);
  b = Conv2d(8, {1, 1}, "hard_sigmoid")(b);
  auto c = Elementwise("add", "gelu")({a, b});
  auto d = Elementwise("multiply", "mish")({a, c});
  auto e = Elementwise("mean", "elu")({c, d});
  auto f = Concat(-1)({e, ZeroPad2d(PadPairs{{0, 0}, {0, 0}})(d)});
  f = MaxPool2d({3, 3}, {.stride = {1}, .padding = Padding::valid()})(f);
  f = DeConv2d(4, {3, 3}, "selu", ConvOptions{.stride = {2}, .padding = Padding::same()})(f);
  f = DeConv2d(4, {2, 2}, "softplus", ConvOptions{.stride = {1}, .padding = Padding::valid()})(f);
  auto g = GlobalMaxPool2d()(f);
  auto h = Reshape({80, 4})(ZeroPad2d(PadPairs{{1, 0}, {0, 1}})(f));  // [N, 10 * 8, 4]
  h = Transpose({0, 2, 1})(h);
  auto h1 = Conv1d(5, {3}, "softsign", ConvOptions{.padding = Padding::valid()})(h);
  h1 = GlobalMeanPool1d()(BatchNorm(0.9, 1e-5, "hard_tanh")(h1));
  auto out = Dense(7, "softmax")(Concat(-1)({g, h1}));
  auto out2 = Dense(3, "tanh")(Dropout(0.5)(Dense(5, "sigmoid")(Flatten()(e))));
  Model net(std::vector<Symbol>{x}, std::vector<Symbol>{out, out2}, "coverage");
  randomize_batch_norms(net);
  check_export(net, {images({2, 12, 10, 3})}, "coverage");
}

TEST(OnnxExport, Embedding) {
  auto ids = nn::Input({-1, 5}, "ids", kInt64);
  nn::Model net(ids, nn::Dense(4, "relu")(nn::Embedding(20, 6)(ids)), "embed");
  check_export(net, {from_vector(std::vector<int64_t>{0, 1, 2, 3, 19, 7, 7, 5, 4, 0}, Shape{2, 5})}, "embedding");
}

TEST(OnnxExport, RefusesALayerWithoutAnOnnxFormByName) {
  auto x = nn::Input({-1, 4, 3});
  nn::Model net(x, nn::Dense(2)(nn::LSTM(5, {}, "my_lstm")(x)), "rnn");
  const auto path = std::filesystem::temp_directory_path() / "strata_onnx_refused.onnx";
  std::filesystem::remove(path);
  strata::testing::expect_error([&] { net.export_onnx(path.string()); }, {"layer 'my_lstm'", "class 'lstm'", "no ONNX form"});
  EXPECT_FALSE(std::filesystem::exists(path));
}
