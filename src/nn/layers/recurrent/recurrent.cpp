// Recurrent layers: each layer projects the whole input sequence with one matmul, then runs
// one recurrent matmul and one fused cell op per step (nn/layers/recurrent.hpp, ops/rnn.hpp).
#include "strata/nn/layers/recurrent.hpp"

#include "strata/nn/option_table.hpp"

#include "nn/call_mutex.hpp"

#include "strata/ops/combine.hpp"
#include "strata/ops/dropout.hpp"
#include "strata/ops/elementwise.hpp"
#include "strata/ops/reduce.hpp"
#include "strata/ops/shape.hpp"

namespace strata::nn {
namespace {

const char* layer_kind(CellKind kind) {
  switch (kind) {
    case CellKind::lstm:
      return "lstm";
    case CellKind::gru:
      return "gru";
    default:
      return "simple_rnn";
  }
}

}  // namespace

Recurrent::Recurrent(CellKind kind, Options options, std::string name)
    : Layer(layer_kind(kind), std::move(name)), kind_(kind), options_(std::move(options)) {
  check_options(options_, *this);
  expect(options_.dropout < 1, "dropout must be in [0, 1), got " + std::to_string(options_.dropout));
}

Recurrent::Recurrent(CellKind kind, int64_t units, RNNOptions options, std::string name, Activation act)
    : Recurrent(kind,
                Options{.units = units,
                        .num_layers = options.num_layers,
                        .return_sequences = options.return_sequences,
                        .dropout = options.dropout,
                        .reverse = options.reverse,
                        .init = std::move(options.init),
                        .act = std::move(act)},
                std::move(name)) {}

std::shared_ptr<Recurrent> Recurrent::mirrored(std::string name) const {
  Options o = options_;
  o.reverse = !o.reverse;
  switch (kind_) {
    case CellKind::lstm:
      return std::make_shared<LSTM>(std::move(o), std::move(name));
    case CellKind::gru:
      return std::make_shared<GRU>(std::move(o), std::move(name));
    default:
      return std::make_shared<SimpleRNN>(std::move(o), std::move(name));
  }
}

void Recurrent::build(const Shape& s) {
  expect(s.size() == 3, "expects inputs of shape [batch, time, features], got " + s.str());
  in_ = s[2];
  const int64_t units = options_.units, gates = gate_count(kind_) * units;
  for (int64_t k = 0; k < options_.num_layers; ++k) {
    const std::string prefix = options_.num_layers == 1 ? "" : "cell_" + std::to_string(k) + "/";
    CellWeights w;
    w.kernel = add_weight(prefix + "kernel", {k == 0 ? in_ : units, gates}, options_.init.kernel);
    w.recurrent_kernel = add_weight(prefix + "recurrent_kernel", {units, gates}, options_.init.recurrent);
    w.bias = add_weight(prefix + "bias", cell_bias_shape(kind_, units, options_.reset_after),
                        cell_bias_init(kind_, units, options_.init));
    cells_.push_back(w);
  }
}

RNNResult Recurrent::run(const Tensor& x, const std::vector<Tensor>& initial_state, const Tensor& lengths,
                         const Tensor& mask) {
  std::lock_guard<std::recursive_mutex> lock(call_mutex(*this));  // the members below carry this call
  expect(!(lengths.defined() && mask.defined()), "takes lengths or a mask, not both");
  expect(x.defined() && x.dim() == 3, "expects inputs of shape [batch, time, features], got " +
                                          (x.defined() ? x.shape().str() : std::string("an undefined tensor")));
  const int64_t B = x.shape()[0], T = x.shape()[1];
  Tensor m;
  if (lengths.defined()) {
    expect(lengths.dim() == 1 && lengths.shape()[0] == B,
           "expected lengths of shape [" + std::to_string(B) + "], got " + lengths.shape().str());
    m = sequence_mask(lengths, T, x.dtype());
  } else if (mask.defined()) {
    expect(mask.shape() == Shape{B, T}, "expected a mask of shape " + Shape{B, T}.str() +
                                            " (the input's batch and time), got " + mask.shape().str());
    m = cast(cast(mask, kBool), x.dtype());
  }
  // A mask of all ones changes nothing: run the unmasked steps.
  if (m.defined() && sum(m).item<double>() == static_cast<double>(m.numel())) m = Tensor();
  initial_ = initial_state;
  mask_ = m;
  struct Clear {
    Recurrent* r;
    ~Clear() { r->initial_.clear(), r->mask_ = Tensor(); }
  } clear{this};
  Tensor y = (*this)(x);
  return {y, std::move(final_)};
}

Tensor Recurrent::forward(const Tensor& x) {
  expect(x.dim() == 3 && x.shape()[2] == in_,
         "expected input of shape [batch, time, " + std::to_string(in_) + "], got " + x.shape().str());
  expect(x.shape()[1] > 0, "expected at least one time step, got input of shape " + x.shape().str());
  const int64_t B = x.shape()[0], L = options_.num_layers;
  const int S = state_count(kind_);
  const Shape state_shape{B, options_.units};
  if (!initial_.empty()) {
    expect(static_cast<int64_t>(initial_.size()) == L * S, "expected an initial state of " + std::to_string(L * S) +
                                                               " tensors (" + std::to_string(S) + " per layer), got " +
                                                               std::to_string(initial_.size()));
    for (const Tensor& s : initial_)
      expect(s.defined() && s.shape() == state_shape,
             "expected initial states of shape " + state_shape.str() + ", got " +
                 (s.defined() ? s.shape().str() : std::string("an undefined tensor")));
  }
  final_.clear();
  Tensor h = x;
  for (int64_t k = 0; k < L; ++k) {
    std::vector<Tensor> state;
    for (int s = 0; s < S; ++s) state.push_back(initial_.empty() ? zeros(state_shape, x.dtype()) : initial_[k * S + s]);
    const bool last = k == L - 1;
    h = run_layer(static_cast<int>(k), h, state, mask_, !last || options_.return_sequences);
    if (!last && options_.dropout > 0) h = dropout(h, options_.dropout, training());
    final_.insert(final_.end(), state.begin(), state.end());
  }
  return options_.return_sequences ? h : final_[(L - 1) * S];
}

Tensor Recurrent::run_layer(int k, const Tensor& x, std::vector<Tensor>& state, const Tensor& mask, bool sequence) {
  const CellWeights& w = cells_[k];
  const int64_t T = x.shape()[1];
  std::vector<Tensor> steps = split(input_gates(kind_, x, w.kernel, w.bias), 1, 1);
  std::vector<Tensor> outputs(sequence ? T : 0);
  const CellMath math{options_.act, options_.recurrent_act, options_.reset_after};
  for (int64_t i = 0; i < T; ++i) {
    const int64_t t = options_.reverse ? T - 1 - i : i;
    std::vector<Tensor> next = cell_step(kind_, squeeze(steps[t], 1), state, w.recurrent_kernel, w.bias, math);
    if (mask.defined()) {
      // A padded step keeps the state and outputs zeros.
      Tensor m = narrow(mask, 1, t, 1);
      if (sequence) outputs[t] = next[0] * m;
      for (size_t s = 0; s < next.size(); ++s) next[s] = state[s] + m * (next[s] - state[s]);
    } else if (sequence) {
      outputs[t] = next[0];
    }
    state = std::move(next);
  }
  return sequence ? stack(outputs, 1) : Tensor();
}

Bidirectional::Bidirectional(Options options, std::string name)
    : Layer("bidirectional", std::move(name)), options_(std::move(options)) {
  expect(options_.layer != nullptr, "needs a recurrent layer (\"layer\") to run both ways");
  check_options(options_, *this);
  bw_ = options_.layer->mirrored(options_.layer->name() + "_backward");
}

Bidirectional::Bidirectional(Recurrent&& layer, std::string name)
    : Bidirectional(Options{.layer = std::dynamic_pointer_cast<Recurrent>(layer.take())}, std::move(name)) {}

RNNResult Bidirectional::run(const Tensor& x, const std::vector<Tensor>& initial_state, const Tensor& lengths,
                             const Tensor& mask) {
  std::lock_guard<std::recursive_mutex> lock(call_mutex(*this));  // the members below carry this call
  initial_ = initial_state;
  lengths_ = lengths;
  mask_ = mask;
  struct Clear {
    Bidirectional* b;
    ~Clear() { b->initial_.clear(), b->lengths_ = b->mask_ = Tensor(); }
  } clear{this};
  Tensor y = (*this)(x);
  return {y, std::move(final_)};
}

Tensor Bidirectional::forward(const Tensor& x) {
  expect(initial_.size() % 2 == 0, "expected an initial state for both directions (an even number of tensors), got " +
                                       std::to_string(initial_.size()));
  const auto half = initial_.begin() + static_cast<std::ptrdiff_t>(initial_.size() / 2);
  RNNResult a = options_.layer->run(x, {initial_.begin(), half}, lengths_, mask_);
  RNNResult b = bw_->run(x, {half, initial_.end()}, lengths_, mask_);
  final_ = std::move(a.state);
  final_.insert(final_.end(), b.state.begin(), b.state.end());
  return concat({a.output, b.output}, -1);
}

using nlohmann::json;

// The recurrent layer Bidirectional holds, as its layer config; null only in the defaults table.
template <>
struct OptionCodec<std::shared_ptr<Recurrent>> {
  static constexpr const char* type = "recurrent layer";
  static constexpr bool integral = false;
  static json write(const std::shared_ptr<Recurrent>& layer) { return layer ? layer_config(*layer) : json(); }
  static std::shared_ptr<Recurrent> read(const json& j) {
    std::shared_ptr<Layer> inner = layer_from_config(j);
    auto recurrent = std::dynamic_pointer_cast<Recurrent>(inner);
    STRATA_CHECK(recurrent != nullptr, "expected a recurrent layer (simple_rnn, lstm or gru), got ", inner->kind());
    return recurrent;
  }
};

STRATA_DEFINE_OPTIONS(RecurrentOptions, STRATA_RECURRENT_OPTIONS)
// Layers made as Recurrent(kind, ...) write as the named layer of their kind.
STRATA_LAYER_WRITTEN_AS("simple_rnn", SimpleRNN, Recurrent);
STRATA_LAYER_WRITTEN_AS("lstm", LSTM, Recurrent);
STRATA_LAYER_WRITTEN_AS("gru", GRU, Recurrent);

STRATA_DEFINE_OPTIONS(BidirectionalOptions, STRATA_BIDIRECTIONAL_OPTIONS)
STRATA_LAYER("bidirectional", Bidirectional);

}  // namespace strata::nn
