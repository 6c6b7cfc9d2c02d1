// Recurrent layers: the cells (SimpleRNN, LSTM, GRU) and the layers that run them over a sequence,
// one way or both.
// One header per layer family (docs/architecture.md, "nn"); each section below keeps its own notes.
#pragma once
#include <memory>
#include <vector>

#include "strata/nn/layer.hpp"
#include "strata/nn/layers/activation.hpp"
#include "strata/nn/options.hpp"

// Recurrent cells: one time step of SimpleRNN, LSTM or GRU, with Keras's (TensorLayer's) gates
// and weight layouts: kernel [in, gates * units], recurrent_kernel [units, gates * units], bias.
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

// Whole-sequence recurrent layers over [batch, time, features] (batch-major, as TensorLayer):
// SimpleRNN, LSTM, GRU (stacked, dropout between layers, initial and final states, variable
// lengths), the Bidirectional wrapper, and TensorLayer's retrieve_seq_length / target_mask.
namespace strata::nn {

// What SimpleRNN, LSTM and GRU share besides units (and SimpleRNN's act).
#define STRATA_RNN_OPTIONS(X)                                                                               \
  X(int64_t, num_layers, 1, between(1, 10000), "stacked layers")                                            \
  X(bool, return_sequences, true, any(), "[batch, time, units]; false: the last output [batch, units]")     \
  X(double, dropout, 0, between(0, 1), "on the outputs of every layer but the last, in training only; < 1") \
  X(bool, reverse, false, any(), "reads the sequence backwards; outputs stay aligned with inputs")          \
  X(CellInit, init, {}, not_saved(), "initializers of each layer's kernel, recurrent_kernel and bias")
STRATA_OPTIONS(RNNOptions, STRATA_RNN_OPTIONS);

// A recurrent layer's options: units, RNNOptions' fields, then the cells' activations and the
// GRU's reset_after (nn/layers/recurrent.hpp).
#define STRATA_RECURRENT_OPTIONS(X)                                 \
  X(int64_t, units, 0, at_least(1), "state features of each layer") \
  STRATA_RNN_OPTIONS(X)                                             \
  STRATA_CELL_MATH_OPTIONS(X)
STRATA_OPTIONS(RecurrentOptions, STRATA_RECURRENT_OPTIONS);

// The output and the final state: per layer, {h} (SimpleRNN, GRU) or {h, c} (LSTM), layer 0
// first; each [batch, units]. Bidirectional: the forward layer's states, then the backward's.
struct RNNResult {
  Tensor output;
  std::vector<Tensor> state;
};

// One class for the three kinds; SimpleRNN, LSTM and GRU below only name the kind.
// Weights per layer k: kernel, recurrent_kernel, bias (as the cells), named "kernel", ... for
// one layer and "cell_k/kernel", ... when stacked, so Keras / TensorLayer weights load by order.
class Recurrent : public Layer {
 public:
  using Options = RecurrentOptions;
  STRATA_LAYER_MOVABLE(Recurrent)
  Recurrent(CellKind kind, Options options, std::string name = "");
  Recurrent(CellKind kind, int64_t units, RNNOptions options = {}, std::string name = "", Activation act = {});

  // Variable lengths: `lengths` [batch] (integers) or `mask` [batch, time] (non-zero = valid),
  // at most one. A masked step updates no state and outputs zeros; the final state is each
  // sequence's state at its last valid step. `initial_state` as RNNResult::state (default zeros).
  RNNResult run(const Tensor& x, const std::vector<Tensor>& initial_state = {}, const Tensor& lengths = {},
                const Tensor& mask = {});

  CellKind cell_kind() const { return kind_; }
  int64_t units() const { return options_.units; }
  const Options& options() const { return options_; }
  struct CellWeights {
    Tensor kernel, recurrent_kernel, bias;
  };
  const std::vector<CellWeights>& cells() const { return cells_; }
  // A fresh, unbuilt layer of the same configuration reading the other way (Bidirectional).
  std::shared_ptr<Recurrent> mirrored(std::string name) const;

 protected:
  void build(const Shape& input_shape) override;
  Tensor forward(const Tensor& x) override;

 private:
  Tensor run_layer(int k, const Tensor& x, std::vector<Tensor>& state, const Tensor& mask, bool sequence);

  CellKind kind_;
  Options options_;
  int64_t in_ = -1;
  std::vector<CellWeights> cells_;
  // run()'s extra arguments and results, passed around Layer::operator().
  std::vector<Tensor> initial_, final_;
  Tensor mask_;
};

struct SimpleRNN : Recurrent {
  STRATA_LAYER_MOVABLE(SimpleRNN)
  explicit SimpleRNN(Options options, std::string name = "")
      : Recurrent(CellKind::simple, std::move(options), std::move(name)) {}
  explicit SimpleRNN(int64_t units, RNNOptions options = {}, std::string name = "", Activation act = {})
      : Recurrent(CellKind::simple, units, std::move(options), std::move(name), std::move(act)) {}
};
struct LSTM : Recurrent {
  STRATA_LAYER_MOVABLE(LSTM)
  explicit LSTM(Options options, std::string name = "")
      : Recurrent(CellKind::lstm, std::move(options), std::move(name)) {}
  explicit LSTM(int64_t units, RNNOptions options = {}, std::string name = "")
      : Recurrent(CellKind::lstm, units, std::move(options), std::move(name)) {}
};
struct GRU : Recurrent {
  STRATA_LAYER_MOVABLE(GRU)
  explicit GRU(Options options, std::string name = "")
      : Recurrent(CellKind::gru, std::move(options), std::move(name)) {}
  explicit GRU(int64_t units, RNNOptions options = {}, std::string name = "")
      : Recurrent(CellKind::gru, units, std::move(options), std::move(name)) {}
};

// "layer" is saved as the layer's config (class, name, config).
#define STRATA_BIDIRECTIONAL_OPTIONS(X) \
  X(std::shared_ptr<Recurrent>, layer, nullptr, any(), "the recurrent layer run forwards (its mirror runs backwards)")
STRATA_OPTIONS(BidirectionalOptions, STRATA_BIDIRECTIONAL_OPTIONS);

// Runs a layer forwards and a mirror of it (own weights, named "<layer>_backward") backwards,
// and concatenates their outputs on the last axis: [..., 2 * units].
class Bidirectional : public Layer {
 public:
  using Options = BidirectionalOptions;
  STRATA_LAYER_MOVABLE(Bidirectional)
  explicit Bidirectional(Options options, std::string name = "");
  explicit Bidirectional(Recurrent&& layer, std::string name = "");
  RNNResult run(const Tensor& x, const std::vector<Tensor>& initial_state = {}, const Tensor& lengths = {},
                const Tensor& mask = {});
  Recurrent& forward_layer() { return *options_.layer; }
  Recurrent& backward_layer() { return *bw_; }
  const Options& options() const { return options_; }

 protected:
  Tensor forward(const Tensor& x) override;

 private:
  Options options_;  // options_.layer: the forward layer
  std::shared_ptr<Recurrent> bw_;
  std::vector<Tensor> initial_, final_;
  Tensor lengths_, mask_;
};

// TensorLayer's helpers for zero-padded batches. data: [batch, time] (ids) or [batch, time,
// features]; a step is padding when all its values equal pad_value.
// The number of non-padding steps per sequence, int64 [batch] (retrieve_seq_length_op3).
Tensor retrieve_seq_length(const Tensor& data, double pad_value = 0);
// 1 at non-padding steps, 0 at padding, int64 [batch, time] (target_mask_op).
Tensor target_mask(const Tensor& data, double pad_value = 0);
// [batch, time] float mask of dtype: 1 where t < lengths[b].
Tensor sequence_mask(const Tensor& lengths, int64_t time, DType dtype = kFloat32);

}  // namespace strata::nn
