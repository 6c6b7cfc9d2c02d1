// Import of ONNX files written by PyTorch's own exporter (torch 2.5.1, torch.onnx.export with
// opset 17, dynamo=False): each committed file (tests/onnx/fixtures/torch, made by
// make_torch_fixtures.py there) computes in Strata what onnxruntime computed for the stored input
// (tolerance 1e-4), and saves and loads whole. No torch or Python at test time.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include <strata/io/npz.hpp>
#include <strata/onnx/onnx.hpp>
#include <strata/strata.hpp>

#include "support/expect_error.hpp"
#include "onnx/onnx_runtime.hpp"

using namespace strata;
using namespace strata::testing;

namespace {

const std::string kFixtures = std::string(STRATA_TESTS_DIR) + "/onnx/fixtures/torch/";

void check_torch(const std::string& name) {
  auto model = onnx::load_onnx(kFixtures + name + ".onnx");
  const io::NamedTensors arrays = io::load_npz(kFixtures + name + ".npz");
  ASSERT_EQ(arrays.size(), 2u);
  ASSERT_EQ(arrays[0].first, "input_0");
  ASSERT_EQ(arrays[1].first, "output_0");
  const std::vector<Tensor> got = model->run({arrays[0].second});
  ASSERT_EQ(got.size(), 1u);
  expect_close(got[0], arrays[1].second, name);
  // An imported model is an ordinary static model: it saves and loads whole.
  const auto dir = onnx_temp_dir("torch_" + name);
  model->save((dir / "imported.safetensors").string());
  auto loaded = nn::Model::load((dir / "imported.safetensors").string());
  loaded->eval();
  expect_close(loaded->run({arrays[0].second})[0], arrays[1].second, name + " saved and loaded");
  std::filesystem::remove_all(dir);
}

std::string read(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

}  // namespace

TEST(OnnxTorch, Mlp) { check_torch("mlp"); }            // Gemm, Relu, Softmax
TEST(OnnxTorch, GeluMlp) { check_torch("gelu_mlp"); }   // Div, Erf, Add, Mul: GELU
TEST(OnnxTorch, Cnn) { check_torch("cnn"); }            // Conv, Relu, BatchNormalization, MaxPool, Flatten
// The same CNN exported with dynamic_axes (batch "N"), run on a batch of 3.
TEST(OnnxTorch, CnnDynamicBatch) { check_torch("cnn_dynamic_batch"); }
TEST(OnnxTorch, Lstm) { check_torch("lstm"); }          // Shape -> Expand (zero state), LSTM, MatMul
TEST(OnnxTorch, Gru) { check_torch("gru"); }
TEST(OnnxTorch, BidirectionalLstm) { check_torch("bilstm"); }
// chunk and x[:, 1:4] (Slice of a value, its bounds from Shape arithmetic), torch.where (Greater,
// Where), a GLU (Sigmoid, Mul of two values), torch.split (Split) and torch.cat (Concat).
TEST(OnnxTorch, SliceAndWhere) { check_torch("split_slice"); }
// nn.TransformerEncoderLayer's modules (make_torch_fixtures.py says why not its forward): MatMul
// of two values, Softmax, head reshapes of the first axis, Gather of q/k/v, shape arithmetic
// (Shape, Slice, Mod, Cast, Sqrt, Div), LayerNormalization.
TEST(OnnxTorch, TransformerEncoderLayer) { check_torch("encoder_layer"); }

// An operator the import lacks is refused by name, the node named: every "Relu" of the MLP's
// file renamed (the same length: the protobuf stays well formed), the operator among them.
TEST(OnnxTorch, RefusesAnUnsupportedOperatorByName) {
  std::string bytes = read(kFixtures + "mlp.onnx");
  ASSERT_NE(bytes.find("Relu"), std::string::npos);
  for (size_t at = bytes.find("Relu"); at != std::string::npos; at = bytes.find("Relu", at)) bytes.replace(at, 4, "Relx");
  expect_error([&] { onnx::from_onnx(bytes, "renamed.onnx"); },
               {"renamed.onnx", "(Relx)", "operator 'Relx' is not supported"});
}
