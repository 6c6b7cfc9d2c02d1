// Recurrent layers: each layer projects the whole input sequence with one matmul, then runs

#include "strata/nn/layer_config.hpp"
// one recurrent matmul and one fused cell op per step (nn/rnn_cells.hpp, ops/rnn.hpp).
#include "strata/nn/recurrent.hpp"

#include "strata/ops/combine.hpp"
#include "strata/ops/dropout.hpp"
#include "strata/ops/elementwise.hpp"
#include "strata/ops/reduce.hpp"
#include "strata/ops/shape.hpp"

namespace strata::nn {
namespace {

const char* layer_kind(CellKind kind) {
  switch (kind) {
    case CellKind::lstm: return "lstm";
    case CellKind::gru: return "gru";
    default: return "simple_rnn";
  }
}

}  // namespace

Recurrent::Recurrent(CellKind kind, int64_t units, RNNOptions options, std::string name, Activation act)
    : Layer(layer_kind(kind), std::move(name)), kind_(kind), units_(units), options_(std::move(options)),
      act_(std::move(act)) {
  expect(units > 0, "units must be positive, got " + std::to_string(units));
  expect(options_.num_layers >= 1, "num_layers must be at least 1, got " + std::to_string(options_.num_layers));
  expect(options_.dropout >= 0 && options_.dropout < 1,
         "dropout must be in [0, 1), got " + std::to_string(options_.dropout));
}

std::shared_ptr<Recurrent> Recurrent::mirrored(std::string name) const {
  RNNOptions o = options_;
  o.reverse = !o.reverse;
  return std::make_shared<Recurrent>(kind_, units_, o, std::move(name), act_);
}

void Recurrent::build(const Shape& s) {
  expect(s.size() == 3, "expects inputs of shape [batch, time, features], got " + s.str());
  in_ = s[2];
  const int64_t gates = gate_count(kind_) * units_;
  for (int64_t k = 0; k < options_.num_layers; ++k) {
    const std::string prefix = options_.num_layers == 1 ? "" : "cell_" + std::to_string(k) + "/";
    CellWeights w;
    w.kernel = add_weight(prefix + "kernel", {k == 0 ? in_ : units_, gates}, options_.init.kernel);
    w.recurrent_kernel = add_weight(prefix + "recurrent_kernel", {units_, gates}, options_.init.recurrent);
    w.bias = add_weight(prefix + "bias", cell_bias_shape(kind_, units_), cell_bias_init(kind_, units_, options_.init));
    cells_.push_back(w);
  }
}

RNNResult Recurrent::run(const Tensor& x, const std::vector<Tensor>& initial_state, const Tensor& lengths,
                         const Tensor& mask) {
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
    expect(mask.shape() == Shape{B, T},
           "expected a mask of shape " + Shape{B, T}.str() + " (the input's batch and time), got " + mask.shape().str());
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
  const Shape state_shape{B, units_};
  if (!initial_.empty()) {
    expect(static_cast<int64_t>(initial_.size()) == L * S,
           "expected an initial state of " + std::to_string(L * S) + " tensors (" + std::to_string(S) +
               " per layer), got " + std::to_string(initial_.size()));
    for (const Tensor& s : initial_)
      expect(s.defined() && s.shape() == state_shape,
             "expected initial states of shape " + state_shape.str() + ", got " +
                 (s.defined() ? s.shape().str() : std::string("an undefined tensor")));
  }
  final_.clear();
  Tensor h = x;
  for (int64_t k = 0; k < L; ++k) {
    std::vector<Tensor> state;
    for (int s = 0; s < S; ++s)
      state.push_back(initial_.empty() ? zeros(state_shape, x.dtype()) : initial_[k * S + s]);
    const bool last = k == L - 1;
    h = run_layer(static_cast<int>(k), h, state, mask_, !last || options_.return_sequences);
    if (!last && options_.dropout > 0) h = dropout(h, options_.dropout, training());
    final_.insert(final_.end(), state.begin(), state.end());
  }
  return options_.return_sequences ? h : final_[(L - 1) * S];
}

Tensor Recurrent::run_layer(int k, const Tensor& x, std::vector<Tensor>& state, const Tensor& mask,
                            bool sequence) {
  const CellWeights& w = cells_[k];
  const int64_t T = x.shape()[1];
  std::vector<Tensor> steps = split(input_gates(kind_, x, w.kernel, w.bias), 1, 1);
  std::vector<Tensor> outputs(sequence ? T : 0);
  for (int64_t i = 0; i < T; ++i) {
    const int64_t t = options_.reverse ? T - 1 - i : i;
    std::vector<Tensor> next = cell_step(kind_, squeeze(steps[t], 1), state, w.recurrent_kernel, w.bias, act_);
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

Bidirectional::Bidirectional(Recurrent&& layer, std::string name) : Layer("bidirectional", std::move(name)) {
  fw_ = std::dynamic_pointer_cast<Recurrent>(layer.take());
  bw_ = fw_->mirrored(fw_->name() + "_backward");
}

RNNResult Bidirectional::run(const Tensor& x, const std::vector<Tensor>& initial_state, const Tensor& lengths,
                             const Tensor& mask) {
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
  RNNResult a = fw_->run(x, {initial_.begin(), half}, lengths_, mask_);
  RNNResult b = bw_->run(x, {half, initial_.end()}, lengths_, mask_);
  final_ = std::move(a.state);
  final_.insert(final_.end(), b.state.begin(), b.state.end());
  return concat({a.output, b.output}, -1);
}

using nlohmann::json;


void Recurrent::get_config(json& c) const {
  c = {{"units", units_},
       {"num_layers", options_.num_layers},
       {"return_sequences", options_.return_sequences},
       {"dropout", options_.dropout},
       {"reverse", options_.reverse},
       {"act", activation_name(act_, *this)}};
}

RNNOptions rnn_options_from(const json& c) {
  RNNOptions o;
  o.num_layers = c.at("num_layers").get<int64_t>();
  o.return_sequences = c.at("return_sequences").get<bool>();
  o.dropout = c.at("dropout").get<double>();
  o.reverse = c.at("reverse").get<bool>();
  return o;
}

STRATA_LAYER_CLASS("simple_rnn", [](const json& c, const std::string& name) {
  return std::make_shared<SimpleRNN>(c.at("units").get<int64_t>(), rnn_options_from(c), name,
                                     Activation(c.at("act").get<std::string>()));
});
STRATA_LAYER_CLASS("lstm", [](const json& c, const std::string& name) {
  return std::make_shared<LSTM>(c.at("units").get<int64_t>(), rnn_options_from(c), name);
});
STRATA_LAYER_CLASS("gru", [](const json& c, const std::string& name) {
  return std::make_shared<GRU>(c.at("units").get<int64_t>(), rnn_options_from(c), name);
});

void Bidirectional::get_config(json& c) const { c = {{"layer", layer_config(*fw_)}}; }

STRATA_LAYER_CLASS("bidirectional", [](const json& c, const std::string& name) {
  std::shared_ptr<Layer> inner = layer_from_config(c.at("layer"));
  auto* recurrent = dynamic_cast<Recurrent*>(inner.get());
  STRATA_CHECK(recurrent != nullptr, "\"layer\" must be a recurrent layer, got ", inner->kind());
  return std::make_shared<Bidirectional>(std::move(*recurrent), name);
});

}  // namespace strata::nn
