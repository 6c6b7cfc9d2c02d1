#include "strata/nn/layers/recurrent.hpp"

#include "strata/nn/option_table.hpp"

#include "strata/ops/elementwise.hpp"
#include "strata/ops/linalg.hpp"
#include "strata/ops/rnn.hpp"
#include "strata/ops/shape.hpp"

namespace strata::nn {
namespace {

const char* kind_name(CellKind kind) {
  switch (kind) {
    case CellKind::lstm:
      return "lstm_cell";
    case CellKind::gru:
      return "gru_cell";
    default:
      return "simple_rnn_cell";
  }
}

// Keras's activation (default tanh) and recurrent_activation (default sigmoid).
Tensor cell_act(const CellMath& m, const Tensor& x) { return m.act ? m.act(x) : strata::tanh(x); }
Tensor cell_gate_act(const CellMath& m, const Tensor& x) {
  return m.recurrent_act ? m.recurrent_act(x) : strata::sigmoid(x);
}

// Gate block g (of `units` columns) of [batch, gates * units].
Tensor gate_block(const Tensor& t, int64_t g, int64_t units) { return narrow(t, 1, g * units, units); }

// The unfused steps: any activations, and the GRU's reset before the recurrent matmul.
std::vector<Tensor> lstm_step_unfused(const Tensor& x_gates, const std::vector<Tensor>& state, const Tensor& u,
                                      const CellMath& m) {
  const int64_t units = state[0].size(1);
  const Tensor z = x_gates + matmul(state[0], u);
  const Tensor i = cell_gate_act(m, gate_block(z, 0, units)), f = cell_gate_act(m, gate_block(z, 1, units));
  const Tensor g = cell_act(m, gate_block(z, 2, units)), o = cell_gate_act(m, gate_block(z, 3, units));
  Tensor c = f * state[1] + i * g;
  return {o * cell_act(m, c), c};
}

Tensor gru_step_unfused(const Tensor& x_gates, const Tensor& h, const Tensor& u, const Tensor& bias,
                        const CellMath& m) {
  const int64_t units = h.size(1);
  Tensor z, r, n;
  if (m.reset_after) {
    const Tensor h_gates = linear(h, u, select(bias, 0, 1));
    z = cell_gate_act(m, gate_block(x_gates, 0, units) + gate_block(h_gates, 0, units));
    r = cell_gate_act(m, gate_block(x_gates, 1, units) + gate_block(h_gates, 1, units));
    n = cell_act(m, gate_block(x_gates, 2, units) + r * gate_block(h_gates, 2, units));
  } else {
    const Tensor h_zr = matmul(h, narrow(u, 1, 0, 2 * units));
    z = cell_gate_act(m, gate_block(x_gates, 0, units) + gate_block(h_zr, 0, units));
    r = cell_gate_act(m, gate_block(x_gates, 1, units) + gate_block(h_zr, 1, units));
    n = cell_act(m, gate_block(x_gates, 2, units) + matmul(r * h, narrow(u, 1, 2 * units, units)));
  }
  return z * h + (1.0 - z) * n;
}

}  // namespace

Shape cell_bias_shape(CellKind kind, int64_t units, bool reset_after) {
  if (kind == CellKind::gru && reset_after) return {2, 3 * units};
  return {gate_count(kind) * units};
}

Initializer cell_bias_init(CellKind kind, int64_t units, const CellInit& init) {
  if (kind != CellKind::lstm || !init.unit_forget_bias) return init.bias;
  return [inner = init.bias, units](const Shape& shape, Generator* gen) {
    Tensor b = inner(shape, gen);
    Tensor forget = narrow(b, 0, units, units);
    fill_(forget, 1.0);
    return b;
  };
}

int gate_count(CellKind kind) { return kind == CellKind::lstm ? 4 : kind == CellKind::gru ? 3 : 1; }
int state_count(CellKind kind) { return kind == CellKind::lstm ? 2 : 1; }

Tensor input_gates(CellKind kind, const Tensor& x, const Tensor& kernel, const Tensor& bias) {
  // A reset-after GRU's bias is [2, 3 * units] (input row, recurrent row); the others' one row.
  return linear(x, kernel, kind == CellKind::gru && bias.dim() == 2 ? select(bias, 0, 0) : bias);
}

std::vector<Tensor> cell_step(CellKind kind, const Tensor& x_gates, const std::vector<Tensor>& state,
                              const Tensor& recurrent_kernel, const Tensor& bias, const CellMath& math) {
  const bool fused = !math.act && !math.recurrent_act;
  switch (kind) {
    case CellKind::lstm:
      if (!fused) return lstm_step_unfused(x_gates, state, recurrent_kernel, math);
      return lstm_cell(x_gates, matmul(state[0], recurrent_kernel), state[1]);
    case CellKind::gru:
      STRATA_CHECK(bias.dim() == (math.reset_after ? 2 : 1),
                   "a GRU with reset_after = ", math.reset_after ? "true" : "false", " expects a bias of shape ",
                   cell_bias_shape(kind, state[0].size(1), math.reset_after).str(), ", got ", bias.shape().str());
      if (!fused || !math.reset_after) return {gru_step_unfused(x_gates, state[0], recurrent_kernel, bias, math)};
      return {gru_cell(x_gates, linear(state[0], recurrent_kernel, select(bias, 0, 1)), state[0])};
    default:
      return {cell_act(math, x_gates + matmul(state[0], recurrent_kernel))};
  }
}

RNNCell::RNNCell(CellKind kind, Options options, std::string name)
    : Layer(kind_name(kind), std::move(name)), kind_(kind), options_(std::move(options)) {
  check_options(options_, *this);
}

RNNCell::RNNCell(CellKind kind, int64_t units, std::string name, CellInit init, Activation act)
    : RNNCell(kind, Options{.units = units, .act = std::move(act), .init = std::move(init)}, std::move(name)) {}

void RNNCell::build(const Shape& s) {
  expect(s.size() == 2, "expects inputs of shape [batch, features], got " + s.str());
  in_ = s.back();
  const int64_t units = options_.units, g = gate_count(kind_) * units;
  kernel = add_weight("kernel", {in_, g}, options_.init.kernel);
  recurrent_kernel = add_weight("recurrent_kernel", {units, g}, options_.init.recurrent);
  bias = add_weight("bias", cell_bias_shape(kind_, units, options_.reset_after),
                    cell_bias_init(kind_, units, options_.init));
}

void RNNCell::build_many(const std::vector<Shape>& shapes) {
  expect(!shapes.empty(), "expects the input and the state, got no tensors");
  build(shapes[0]);
}

std::vector<Tensor> RNNCell::zero_state(int64_t batch, DType dtype) const {
  std::vector<Tensor> state;
  for (int i = 0; i < state_count(kind_); ++i) state.push_back(zeros({batch, options_.units}, dtype));
  return state;
}

Tensor RNNCell::forward(const Tensor& x) {
  std::vector<Tensor> xs{x};
  for (Tensor& s : zero_state(x.dim() == 2 ? x.shape()[0] : 0, x.dtype())) xs.push_back(s);
  return forward_many(xs);
}

Tensor RNNCell::forward_many(const std::vector<Tensor>& xs) {
  const int n = state_count(kind_);
  expect(
      xs.size() == static_cast<size_t>(n) + 1,
      "expects the input and " + std::to_string(n) + " state tensor(s), got " + std::to_string(xs.size()) + " tensors");
  const Tensor& x = xs[0];
  expect(x.dim() == 2 && x.shape()[1] == in_,
         "expected input of shape [batch, " + std::to_string(in_) + "], got " + x.shape().str());
  const Shape state_shape{x.shape()[0], options_.units};
  for (int i = 1; i <= n; ++i)
    expect(xs[i].shape() == state_shape,
           "expected state of shape " + state_shape.str() + ", got " + xs[i].shape().str());
  new_state_ = cell_step(kind_, input_gates(kind_, x, kernel, bias), {xs.begin() + 1, xs.end()}, recurrent_kernel, bias,
                         {options_.act, options_.recurrent_act, options_.reset_after});
  return new_state_[0];
}

std::vector<Tensor> RNNCell::step(const Tensor& x, const std::vector<Tensor>& state) {
  std::vector<Tensor> xs{x};
  xs.insert(xs.end(), state.begin(), state.end());
  (*this)(xs);
  return std::move(new_state_);
}

STRATA_DEFINE_OPTIONS(RNNCellOptions, STRATA_RNN_CELL_OPTIONS)
// Cells made as RNNCell(kind, ...) write as the named cell of their kind.
STRATA_LAYER_WRITTEN_AS("simple_rnn_cell", SimpleRNNCell, RNNCell);
STRATA_LAYER_WRITTEN_AS("lstm_cell", LSTMCell, RNNCell);
STRATA_LAYER_WRITTEN_AS("gru_cell", GRUCell, RNNCell);

}  // namespace strata::nn
