// Recurrent cells: one time step of SimpleRNN, LSTM or GRU, with Keras's (TensorLayer's) gates
// and weight layouts: kernel [in, gates * units], recurrent_kernel [units, gates * units], bias.
#pragma once
#include <vector>

#include "strata/nn/activation.hpp"
#include "strata/nn/layer.hpp"
#include "strata/nn/options.hpp"

namespace strata::nn {

enum class CellKind { simple, lstm, gru };

// Weights and state of a cell kind. Gate order: LSTM i, f, c, o; GRU z, r, n. The GRU bias is
// [2, 3 * units] (input bias, recurrent bias: Keras 2's reset_after); the others' [gates * units].
int gate_count(CellKind kind);
int state_count(CellKind kind);  // LSTM: h and c; the others: h

// Initializers as Keras: glorot_uniform kernel, orthogonal recurrent kernel, zero bias; an LSTM
// starts its forget-gate bias at one (Keras's unit_forget_bias).
struct CellInit {
  Initializer kernel = glorot_uniform();
  Initializer recurrent = orthogonal();
  Initializer bias = zeros_init();
  bool unit_forget_bias = true;
};

// Cell initializers are never saved (not_saved()): only their type is named (nn/option_table.hpp).
template <class T>
struct OptionCodec;
template <>
struct OptionCodec<CellInit> {
  static constexpr const char* type = "cell initializers";
  static constexpr bool integral = false;
};

// Keras's activation and recurrent_activation, and the GRU's reset_after, as option fields
// (RNNCellOptions and nn::RecurrentOptions). Empty activations are the defaults, which run fused.
#define STRATA_CELL_MATH_OPTIONS(X)                                                                            \
  X(Activation, act, {}, any(),                                                                                \
    "Keras's activation: SimpleRNN's output, LSTM's candidate and cell output, GRU's candidate (empty: tanh)") \
  X(Activation, recurrent_act, {}, any(),                                                                      \
    "Keras's recurrent_activation: LSTM's and GRU's gates (empty: sigmoid); SimpleRNN: unused")                \
  X(bool, reset_after, true, any(),                                                                            \
    "GRU: reset gate after the recurrent matmul (bias [2, 3·units]); false: before it (Keras's "              \
    "reset_after=False, bias [3·units]); others: unused")

#define STRATA_RNN_CELL_OPTIONS(X)                    \
  X(int64_t, units, 0, at_least(1), "state features") \
  STRATA_CELL_MATH_OPTIONS(X)                         \
  X(CellInit, init, {}, not_saved(), "initializers of kernel, recurrent_kernel and bias")
STRATA_OPTIONS(RNNCellOptions, STRATA_RNN_CELL_OPTIONS);

// What a cell step computes besides its kind and weights (the fields above).
STRATA_OPTIONS(CellMath, STRATA_CELL_MATH_OPTIONS);

// A cell called on x [batch, features] starts from a zero state and returns the new h; step()
// takes and returns the whole state ({h} or {h, c}), whose first element is the output.
class RNNCell : public Layer {
 public:
  using Options = RNNCellOptions;
  STRATA_LAYER_MOVABLE(RNNCell)
  RNNCell(CellKind kind, Options options, std::string name = "");
  // `act` is SimpleRNN's activation (default tanh); the Options form sets every field.
  RNNCell(CellKind kind, int64_t units, std::string name = "", CellInit init = {}, Activation act = {});
  std::vector<Tensor> step(const Tensor& x, const std::vector<Tensor>& state);
  std::vector<Tensor> zero_state(int64_t batch, DType dtype = kFloat32) const;
  CellKind cell_kind() const { return kind_; }
  int64_t units() const { return options_.units; }
  const Options& options() const { return options_; }
  Tensor kernel, recurrent_kernel, bias;

 protected:
  void build(const Shape& input_shape) override;
  void build_many(const std::vector<Shape>& shapes) override;
  Tensor forward(const Tensor& x) override;
  Tensor forward_many(const std::vector<Tensor>& xs) override;

 private:
  CellKind kind_;
  Options options_;
  int64_t in_ = -1;
  std::vector<Tensor> new_state_;  // what the last forward_many computed, for step()
};

struct SimpleRNNCell : RNNCell {
  STRATA_LAYER_MOVABLE(SimpleRNNCell)
  explicit SimpleRNNCell(Options options, std::string name = "")
      : RNNCell(CellKind::simple, std::move(options), std::move(name)) {}
  explicit SimpleRNNCell(int64_t units, std::string name = "", Activation act = {}, CellInit init = {})
      : RNNCell(CellKind::simple, units, std::move(name), std::move(init), std::move(act)) {}
};
struct LSTMCell : RNNCell {
  STRATA_LAYER_MOVABLE(LSTMCell)
  explicit LSTMCell(Options options, std::string name = "")
      : RNNCell(CellKind::lstm, std::move(options), std::move(name)) {}
  explicit LSTMCell(int64_t units, std::string name = "", CellInit init = {})
      : RNNCell(CellKind::lstm, units, std::move(name), std::move(init)) {}
};
struct GRUCell : RNNCell {
  STRATA_LAYER_MOVABLE(GRUCell)
  explicit GRUCell(Options options, std::string name = "")
      : RNNCell(CellKind::gru, std::move(options), std::move(name)) {}
  explicit GRUCell(int64_t units, std::string name = "", CellInit init = {})
      : RNNCell(CellKind::gru, units, std::move(name), std::move(init)) {}
};

// The bias of a cell kind: its shape, and its initializer with the LSTM forget-gate ones.
Shape cell_bias_shape(CellKind kind, int64_t units, bool reset_after = true);
Initializer cell_bias_init(CellKind kind, int64_t units, const CellInit& init);

// One step of a cell kind as a function of its weights, for layers that hold cell weights.
// x_gates is x·kernel plus the input bias (input_gates), so a sequence projects every step at once.
// A GRU with reset_after = false (bias [3 * units], all of it input bias) computes Keras's
//   z = ra(x_z + h·U_z),  r = ra(x_r + h·U_r),  n = a(x_n + (r·h)·U_n),  h' = z·h + (1 - z)·n
// (ra: recurrent_act, a: act); with the default activations and reset_after the fused ops run.
Tensor input_gates(CellKind kind, const Tensor& x, const Tensor& kernel, const Tensor& bias);
std::vector<Tensor> cell_step(CellKind kind, const Tensor& x_gates, const std::vector<Tensor>& state,
                              const Tensor& recurrent_kernel, const Tensor& bias, const CellMath& math = {});

}  // namespace strata::nn
