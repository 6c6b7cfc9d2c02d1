// Export: every example and zoo model, and a model of each exported layer, run by onnxruntime
// gives Strata's outputs (tolerance 1e-4); a layer without an ONNX form is refused by name.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <strata/nn/functions.hpp>
#include <strata/nn/zoo/zoo.hpp>
#include <strata/onnx/onnx.hpp>
#include <strata/points/pointnet.hpp>
#include <strata/points/pointnet2.hpp>
#include <strata/strata.hpp>

#include "../../examples/fashion_mnist_cnn_net.hpp"
#include "support/expect_error.hpp"
#include "onnx/onnx_models.hpp"
#include "onnx/onnx_runtime.hpp"

using namespace strata;
using namespace strata::testing;

namespace {

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

// Each layer class the exporter knows (tests/onnx/onnx_models.hpp).
TEST(OnnxExport, LayerCoverage) {
  nn::Model net = coverage_model();
  randomize_batch_norms(net);
  check_export(net, {images({2, 12, 10, 3})}, "coverage");
}

TEST(OnnxExport, Embedding) {
  auto ids = nn::Input({-1, 5}, "ids", kInt64);
  nn::Model net(ids, nn::Dense(4, "relu")(nn::Embedding(20, 6)(ids)), "embed");
  check_export(net, {from_vector(std::vector<int64_t>{0, 1, 2, 3, 19, 7, 7, 5, 4, 0}, Shape{2, 5})}, "embedding");
}

TEST(OnnxExport, RecurrentLayers) {
  nn::Model net = recurrent_model();
  check_export(net, {images({3, 6, 4})}, "recurrent");
}

// Keras's reset_after=False GRU (linear_before_reset 0) and other activations (the activations
// attribute); an activation ONNX's recurrent nodes lack is refused by name.
TEST(OnnxExport, RecurrentActivationsAndResetBefore) {
  auto x = nn::Input({-1, 6, 4}, "sequence");
  auto a = nn::GRU({.units = 4, .reset_after = false})(x);
  auto b = nn::LSTM({.units = 3, .act = "relu", .recurrent_act = "tanh"})(x);
  auto c = nn::GRU(
      {.units = 3, .return_sequences = false, .act = "sigmoid", .recurrent_act = "relu", .reset_after = false})(a);
  nn::Model net(std::vector<nn::Symbol>{x}, std::vector<nn::Symbol>{a, b, c}, "recurrent_variants");
  randomize_weights(net, {"bias"}, 12);
  auto y = nn::Input({-1, 6, 4});
  nn::Model refused(y, nn::LSTM({.units = 3, .recurrent_act = "hard_sigmoid"}, "hard_lstm")(y), "refused");
  const auto path = std::filesystem::temp_directory_path() / "strata_onnx_refused_recurrent.onnx";
  strata::testing::expect_error([&] { refused.export_onnx(path.string()); },
                                {"layer 'hard_lstm'", "recurrent_act 'hard_sigmoid'", "no ONNX form"});
  std::filesystem::remove(path);
  // Imported back, the nodes are Strata's layers again (not ONNX's definition), with the options.
  net.export_onnx(path.string());
  const auto imported = onnx::load_onnx(path.string());
  std::filesystem::remove(path);
  const std::string config = nlohmann::json::parse(imported->to_json()).dump();
  EXPECT_NE(config.find("\"reset_after\":false"), std::string::npos) << config;
  EXPECT_NE(config.find("\"recurrent_act\":\"tanh\""), std::string::npos) << config;
  EXPECT_NE(config.find("\"act\":\"sigmoid\""), std::string::npos) << config;
  const Tensor sequence = images({3, 6, 4});
  const std::vector<Tensor> want = net.run({sequence}), got = imported->run({sequence});
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) expect_close(got[i], want[i], "re-imported output " + std::to_string(i));
  check_export(net, {sequence}, "recurrent_variants");
}

TEST(OnnxExport, AttentionAndTransformers) {
  nn::Model net = transformer_model();
  check_export(net, {images({2, 5, 8})}, "transformer");
}

TEST(OnnxExport, PReluAndScale) {
  nn::Model net = prelu_model();
  check_export(net, {images({2, 6, 5, 3})}, "prelu_scale");
}

TEST(OnnxExport, RefusesALayerWithoutAnOnnxFormByName) {
  nn::register_function("onnx_test_twice", [](const Tensor& t) { return t * 2.0; });
  auto x = nn::Input({-1, 4, 3});
  nn::Model net(x, nn::Dense(2)(nn::Lambda("onnx_test_twice", {}, "my_lambda")(x)), "lambda_model");
  const auto path = std::filesystem::temp_directory_path() / "strata_onnx_refused.onnx";
  std::filesystem::remove(path);
  strata::testing::expect_error([&] { net.export_onnx(path.string()); },
                                {"layer 'my_lambda'", "class 'lambda'", "no ONNX form"});
  EXPECT_FALSE(std::filesystem::exists(path));
}

// Point-cloud layers whose steps ONNX has: PointNet with its transform nets (a cloud with
// normals after the coordinates; per-point features for segmentation) and PointMlp, their
// batch norms' statistics made non-trivial so that exporting them wrongly would show.
TEST(OnnxExport, PointNetAndPointMlp) {
  manual_seed(12);
  auto x = nn::Input({-1, 32, 6});
  auto global = points::PointNet({.mlp1 = {8, 8}, .mlp2 = {8, 16}}, "pn")(x);
  auto per_point = points::PointNet({.input_transform = false, .mlp1 = {8}, .mlp2 = {12}, .global_only = false}, "pn_seg")(x);
  auto shared = points::PointMlp(points::PointMlpOptions{.units = {5, 4}, .act = "lrelu0.2"}, "shared")(x);
  nn::Model net({x}, {global, per_point, shared}, "pointnet_onnx");
  {
    NoGradGuard no_grad;
    for (auto [name, w] : net.named_weights()) {  // w shares the layer's storage
      if (name.find("moving_var") != std::string::npos) copy_(w, uniform(w.shape(), 0.5, 2.0));
      else if (name.find("moving_mean") != std::string::npos || name.find("/out/") != std::string::npos)
        copy_(w, uniform(w.shape(), -0.3, 0.3));  // the transform nets' correction too, not only the identity
    }
  }
  check_export(net, {uniform({3, 32, 6}, -1, 1)}, "pointnet");
}

// The point-cloud layers' searches have no ONNX operator: the exporter names the layer.
TEST(OnnxExport, RefusesPointCloudLayersByName) {
  auto x = nn::Input({-1, 32, 3});
  nn::Model net(x, nn::Flatten()(points::SetAbstraction(8, 0.4, 4, {8}, "sa_refused")(x)), "points_refused");
  const auto path = std::filesystem::temp_directory_path() / "strata_onnx_points_refused.onnx";
  std::filesystem::remove(path);
  strata::testing::expect_error([&] { net.export_onnx(path.string()); },
                                {"layer 'sa_refused'", "class 'setabstraction'", "no ONNX form"});
  EXPECT_FALSE(std::filesystem::exists(path));
}
