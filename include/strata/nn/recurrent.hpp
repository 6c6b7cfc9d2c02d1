// Whole-sequence recurrent layers over [batch, time, features] (batch-major, as TensorLayer):
// SimpleRNN, LSTM, GRU (stacked, dropout between layers, initial and final states, variable
// lengths), the Bidirectional wrapper, and TensorLayer's retrieve_seq_length / target_mask.
#pragma once
#include <memory>
#include <vector>

#include "strata/nn/options.hpp"
#include "strata/nn/rnn_cells.hpp"

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
// GRU's reset_after (nn/rnn_cells.hpp).
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
