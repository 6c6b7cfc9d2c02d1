// Import: ONNX files made with the onnx helper API (tests/onnx/make_onnx_models.py, at test time
// in the cached venv) give onnxruntime's outputs in Strata (tolerance 1e-4); Strata's own exports
// come back computing what the original computes; hostile files are refused with an Error.
#include <gtest/gtest.h>

#include <fstream>

#include <strata/io/npz.hpp>
#include <strata/nn/zoo/zoo.hpp>
#include <strata/onnx/onnx.hpp>
#include <strata/strata.hpp>

#include "../../examples/fashion_mnist_cnn_net.hpp"
#include "support/expect_error.hpp"
#include "onnx/onnx_models.hpp"
#include "onnx/onnx_runtime.hpp"

using namespace strata;
using namespace strata::testing;

namespace {

// The generator's files, written once for the whole test program.
const std::filesystem::path& generated() {
  static const std::filesystem::path dir = onnx_generated_files("make_onnx_models.py", "generated");
  return dir;
}

void check_generated(const std::string& name) {
  if (onnx_python().empty()) GTEST_SKIP() << "onnx and onnxruntime could not be installed from PyPI (offline?)";
  auto model = onnx::load_onnx((generated() / (name + ".onnx")).string());
  std::vector<Tensor> inputs, expected;
  for (auto& [key, t] : io::load_npz((generated() / (name + ".npz")).string()))
    (key.starts_with("input_") ? inputs : expected).push_back(t);
  const std::vector<Tensor> got = model->run(inputs);
  ASSERT_EQ(got.size(), expected.size());
  for (size_t i = 0; i < got.size(); ++i) expect_close(got[i], expected[i], name + " output " + std::to_string(i));
  // An imported model is an ordinary static model: it saves and loads whole.
  const auto file = generated() / (name + ".safetensors");
  model->save(file.string());
  auto loaded = nn::Model::load(file.string());
  loaded->eval();
  expect_close(loaded->run(inputs)[0], expected[0], name + " saved and loaded");
}

// Strata -> ONNX -> Strata computes what the original does.
void check_round_trip(nn::Model& model, const std::vector<Tensor>& inputs) {
  model.eval();
  auto back = onnx::from_onnx(onnx::to_onnx(model), model.name());
  const std::vector<Tensor> expected = model.run(inputs), got = back->run(inputs);
  ASSERT_EQ(got.size(), expected.size());
  for (size_t i = 0; i < got.size(); ++i) expect_close(got[i], expected[i], model.name() + " output " + std::to_string(i));
  // and saves and loads whole, lambdas of the registered onnx functions included.
  const auto file = onnx_temp_dir(model.name()) / "imported.safetensors";
  back->save(file.string());
  auto loaded = nn::Model::load(file.string());
  loaded->eval();
  expect_close(loaded->run(inputs)[0], expected[0], model.name() + " imported, saved and loaded");
  std::filesystem::remove_all(file.parent_path());
}

}  // namespace

TEST(OnnxImport, HelperCnn) { check_generated("cnn"); }
TEST(OnnxImport, HelperMlp) { check_generated("mlp"); }
TEST(OnnxImport, HelperDeconvPadConv1d) { check_generated("deconv"); }
TEST(OnnxImport, HelperEmbedding) { check_generated("embedding_mean"); }
TEST(OnnxImport, HelperLayerNorm) { check_generated("layer_norm"); }

TEST(OnnxImport, RefusesAnUnknownOperatorByName) {
  if (onnx_python().empty()) GTEST_SKIP() << "onnx could not be installed from PyPI (offline?)";
  expect_error([] { onnx::load_onnx((generated() / "unknown_op.onnx").string()); },
               {"unknown_op.onnx", "node 'det_1' (Det)", "operator 'Det' is not supported"});
}

TEST(OnnxImport, RefusesAnInitializerShorterThanItsDims) {
  if (onnx_python().empty()) GTEST_SKIP() << "onnx could not be installed from PyPI (offline?)";
  expect_error([] { onnx::load_onnx((generated() / "short_initializer.onnx").string()); },
               {"initializer 'w'", "20 bytes of data for dims holding 48"});
}

TEST(OnnxImport, RefusesAnInputTooLargeToHold) {
  if (onnx_python().empty()) GTEST_SKIP() << "onnx could not be installed from PyPI (offline?)";
  expect_error([] { onnx::load_onnx((generated() / "huge_input.onnx").string()); }, {"input 'x'"});
}

// Shape arithmetic and attention ops are bounded before they compute or allocate anything.
TEST(OnnxImport, RefusesHostileShapeArithmetic) {
  if (onnx_python().empty()) GTEST_SKIP() << "onnx could not be installed from PyPI (offline?)";
  auto load = [](const std::string& name) { return [name] { onnx::load_onnx((generated() / (name + ".onnx")).string()); }; };
  expect_error(load("huge_expand"), {"huge_expand.onnx", "node 'expand' (Expand)", "1048576"});
  expect_error(load("huge_matmul"), {"huge_matmul.onnx", "node 'outer' (MatMul)", "1048576"});
  expect_error(load("divide_by_zero"), {"node 'div' (Div)", "division by zero"});
  expect_error(load("gather_out_of_range"), {"node 'pick' (Gather)", "index 5 is out of range"});
}

TEST(OnnxImport, RefusesBytesThatAreNotOnnx) {
  expect_error([] { onnx::from_onnx(std::string("\x08\x07garbage\xff\xff\xff", 12), "junk"); }, {"junk"});
  expect_error([] { onnx::from_onnx("", "empty"); }, {"empty"});
}

TEST(OnnxImport, RoundTripFashionMnistCnn) {
  nn::Model net = fashion_mnist_cnn_static();
  check_round_trip(net, {images({2, 28, 28, 1})});
}

TEST(OnnxImport, RoundTripLayerCoverage) {
  nn::Model net = coverage_model("relu");
  randomize_batch_norms(net);
  check_round_trip(net, {images({2, 12, 10, 3})});
}

TEST(OnnxImport, RoundTripZooMobileNet) {
  auto net = nn::zoo::mobilenet_v1("dropout", {-1, 32, 32, 3});
  he_scale(*net);
  randomize_batch_norms(*net);
  check_round_trip(*net, {images({1, 32, 32, 3})});
}

TEST(OnnxImport, RoundTripZooSqueezeNet) {
  auto net = nn::zoo::squeezenet_v1("out", {-1, 64, 64, 3});
  he_scale(*net);
  check_round_trip(*net, {images({1, 64, 64, 3})});
}

TEST(OnnxImport, RoundTripRecurrent) {
  nn::Model net = recurrent_model();
  check_round_trip(net, {images({3, 6, 4})});
}

// Strata's attention splits heads with Reshape [0, 0, heads, d] (0: keep that size), so the
// batch stays symbolic: the imported model runs any batch.
TEST(OnnxImport, RoundTripAttentionAndTransformers) {
  nn::Model net = transformer_model();
  check_round_trip(net, {images({2, 5, 8})});
  check_round_trip(net, {images({3, 5, 8})});
}

TEST(OnnxImport, RoundTripPReluAndScale) {
  nn::Model net = prelu_model();
  check_round_trip(net, {images({2, 6, 5, 3})});
}
