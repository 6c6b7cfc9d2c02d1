// ONNX RNN / GRU / LSTM imported by their definition (src/onnx/onnx_import_recurrent_values.cpp)
// train like any imported model: the registered functions' gradients with respect to the input,
// the weights, the biases, the initial states and the peepholes equal finite differences. (Their
// values are checked against onnxruntime in test_onnx_ops.cpp's Recurrent family.)
#include <gtest/gtest.h>

#include <strata/autograd/gradcheck.hpp>
#include <strata/nn/functions.hpp>
#include <strata/strata.hpp>

using namespace strata;

namespace {

// Float64 operands of a node of `gates` gates, all computed (sequence_lens absent: a constant),
// and the function's attribute weights: kind, reverse, linear_before_reset, input_forget; one
// activation code list per direction.
struct OnnxRecurrentCase {
  int64_t kind, gates;
  std::vector<int64_t> acts;
  bool lstm() const { return kind == 2; }
};

std::vector<Tensor> onnx_recurrent_operands(const OnnxRecurrentCase& c, int64_t dirs) {
  const int64_t T = 3, B = 2, I = 2, H = 2;
  auto value = [](Shape s, double scale) {
    Tensor t = randn(s, kFloat64) * scale;
    t.requires_grad_();
    return t;
  };
  std::vector<Tensor> xs = {value({T, B, I}, 1.0), value({dirs, c.gates * H, I}, 0.5),
                            value({dirs, c.gates * H, H}, 0.5), value({dirs, 2 * c.gates * H}, 0.3),
                            value({dirs, B, H}, 1.0)};
  if (c.lstm()) xs.insert(xs.end(), {value({dirs, B, H}, 1.0), value({dirs, 3 * H}, 0.5)});
  return xs;
}

Tensor onnx_recurrent_call(const OnnxRecurrentCase& c, int64_t dirs, int which, const std::vector<Tensor>& xs) {
  // Operand 4 (sequence_lens) is the one constant, absent (empty); for RNN and GRU also
  // initial_c and P (bits 6 and 7).
  const int constants = c.lstm() ? 16 : 16 | 64 | 128;
  const std::string name = "onnx.recurrent.l0.y" + std::to_string(which) + ".c" + std::to_string(constants);
  std::vector<Tensor> weights = {zeros(Shape{0})};
  if (!c.lstm()) weights.insert(weights.end(), {zeros(Shape{0}), zeros(Shape{0})});
  std::vector<int64_t> acts;
  for (int64_t d = 0; d < dirs; ++d) acts.insert(acts.end(), c.acts.begin(), c.acts.end());
  const std::vector<float> ones(acts.size(), 1.0f);
  weights.insert(weights.end(), {from_vector(std::vector<int64_t>{c.kind, 0, 0, 0}), from_vector(acts),
                                 from_vector(ones), from_vector(ones), from_vector(std::vector<float>{0})});
  return nn::find_function(name)(xs, weights);
}

TEST(OnnxRecurrentValues, GradientsMatchFiniteDifferences) {
  // RNN with Softsign, GRU (linear_before_reset 0), LSTM with peepholes; both directions; Y and
  // the last output (and LSTM's last cell state).
  const std::vector<OnnxRecurrentCase> cases = {{0, 1, {9}}, {1, 3, {0, 1}}, {2, 4, {0, 1, 1}}};
  for (const OnnxRecurrentCase& c : cases) {
    for (int which = 0; which < (c.lstm() ? 3 : 2); ++which) {
      const std::vector<Tensor> xs = onnx_recurrent_operands(c, 2);
      const auto r =
          autograd::gradcheck([&](const std::vector<Tensor>& v) { return onnx_recurrent_call(c, 2, which, v); }, xs);
      EXPECT_TRUE(r.ok) << "kind " << c.kind << ", output " << which << ": " << r.message;
    }
  }
}

}  // namespace
