// ONNX RNN, GRU and LSTM by their definition (onnx's Operators.md), for what Strata's recurrent
// layers do not take (onnx_import_recurrent.cpp maps the rest onto them): W, R and B computed by
// the graph (the onnx package's node test cases feed them as inputs), initial states that are
// values or non-zero constants, sequence_lens, LSTM's peepholes and input_forget, GRU with
// linear_before_reset = 0, clip, each activation ONNX lists with its alpha and beta, different
// activations per direction, and the Y_c output. A registered function per output runs the whole
// node step by step with Strata's ops (so autograd sees it and the imported model trains); its
// attributes are the function's weights (integers: kind and flags, activation codes), and the
// layout and output are in its name, since they decide the output's shape.
//
// sequence_lens: a sequence's steps past its length output zeros and keep the state, so Y_h is
// the state at the last valid step, read backwards from that step in the reverse direction (as
// onnxruntime computes it).
#include <algorithm>
#include <bit>
#include <cmath>
#include <optional>

#include "strata/core/error.hpp"
#include "strata/core/factory.hpp"
#include "strata/nn/functions.hpp"
#include "strata/ops/combine.hpp"
#include "strata/ops/elementwise.hpp"
#include "strata/ops/linalg.hpp"
#include "strata/ops/shape.hpp"

#include "onnx_import_recurrent.hpp"

namespace strata::onnx::detail {

namespace {

using Ws = const std::vector<Tensor>&;
// The function's operands, in the node's input order; an absent optional one is an empty weight.
enum Operand { kX, kW, kR, kB, kLengths, kInitialH, kInitialC, kPeepholes, kOperands };

bool takes_alpha(const std::string& a) {
  return a == "Affine" || a == "LeakyRelu" || a == "ThresholdedRelu" || a == "ScaledTanh" || a == "HardSigmoid" ||
         a == "Elu";
}
bool takes_beta(const std::string& a) { return a == "Affine" || a == "ScaledTanh" || a == "HardSigmoid"; }

// ONNX's default parameters where the operator of the same name has one; Affine's and ScaledTanh's
// have none in ONNX's text, so they must be given.
float default_alpha(const std::string& a) {
  return a == "LeakyRelu" ? 0.01f : a == "HardSigmoid" ? 0.2f : 1.0f;  // ThresholdedRelu, Elu: 1
}

Tensor activation(int64_t code, const Tensor& x, double alpha, double beta) {
  switch (code) {
    case 0:
      return sigmoid(x);
    case 1:
      return tanh(x);
    case 2:
      return relu(x);
    case 3:
      return x * alpha + beta;  // Affine
    case 4:
      return leaky_relu(x, alpha);
    case 5:
      return where(gt(x, full_like(x, alpha)), x, zeros_like(x));  // ThresholdedRelu
    case 6:
      return tanh(x * beta) * alpha;  // ScaledTanh
    case 7:
      return clamp(x * alpha + beta, 0.0, 1.0);  // HardSigmoid
    case 8:
      return elu(x, alpha);
    case 9:
      return softsign(x);
    case 10:
      return softplus(x);
    default:
      throw Error("onnx.recurrent: activation code " + std::to_string(code) + " is not one of 0 to 10");
  }
}

// The attributes as the function reads them from its weights (dirs and layout come from the
// operands' shapes and the function's name).
RecurrentSpec attributes(Ws w) {
  STRATA_CHECK(w.size() == 5 && w[0].numel() == 4 && w[1].numel() == w[2].numel() && w[1].numel() == w[3].numel() &&
                   w[4].numel() == 1,
               "onnx.recurrent: expected weights options [4], acts, alpha and beta of one length, clip [1]");
  const std::vector<int64_t> o = cast(w[0], kInt64).to_vector<int64_t>();
  STRATA_CHECK(o[0] >= 0 && o[0] <= 2, "onnx.recurrent: kind ", o[0], " is not 0 to 2");
  RecurrentSpec a;
  a.kind = static_cast<RecurrentSpec::Kind>(o[0]);
  a.reverse = o[1] != 0, a.linear_before_reset = o[2] != 0, a.input_forget = o[3] != 0;
  a.clip = cast(w[4], kFloat32).item<float>();
  a.acts = cast(w[1], kInt64).to_vector<int64_t>();
  a.alpha = cast(w[2], kFloat32).to_vector<float>();
  a.beta = cast(w[3], kFloat32).to_vector<float>();
  return a;
}

// One direction d over time-major x [T, B, I]: its outputs [T, B, H] (when `sequence`) and its
// final state {h} or {h, c}.
struct DirectionResult {
  Tensor y;
  std::vector<Tensor> state;
};

DirectionResult run_direction(const RecurrentSpec& a, const std::vector<Tensor>& op, int64_t d, bool backwards,
                              bool sequence) {
  const Tensor& x = op[kX];
  const int64_t T = x.size(0), batch = x.size(1), H = op[kR].size(2);
  const int64_t G = a.gates(), n = a.acts_per_direction();
  // The direction's k-th activation; clip bounds the gates' inputs (not LSTM's cell state).
  auto act = [&](int64_t k, Tensor v, bool clipped = true) {
    if (clipped && a.clip > 0) v = clamp(v, -a.clip, a.clip);
    const size_t i = static_cast<size_t>(d * n + k);
    return activation(a.acts[i], v, a.alpha[i], a.beta[i]);
  };
  const Tensor w = select(op[kW], 0, d), r = select(op[kR], 0, d);
  Tensor wb = zeros(Shape{G * H}, x.dtype()), rb = wb;
  if (op[kB].numel() > 0) {
    const Tensor b = select(op[kB], 0, d);
    wb = narrow(b, 0, 0, G * H), rb = narrow(b, 0, G * H, G * H);
  }
  // Every step's input projection at once: [T, B, G H].
  const Tensor xg = matmul(x, transpose(w, 0, 1)) + wb;
  std::vector<Tensor> state{op[kInitialH].numel() > 0 ? select(op[kInitialH], 0, d)
                                                      : zeros(Shape{batch, H}, x.dtype())};
  if (a.kind == RecurrentSpec::lstm)
    state.push_back(op[kInitialC].numel() > 0 ? select(op[kInitialC], 0, d) : zeros(Shape{batch, H}, x.dtype()));
  Tensor lengths;
  if (op[kLengths].numel() > 0) lengths = reshape(cast(op[kLengths], x.dtype()), Shape{batch, 1});
  auto gate = [&](const Tensor& t, int64_t g) { return narrow(t, 1, g * H, H); };
  std::vector<Tensor> ys(sequence ? T : 0);
  for (int64_t i = 0; i < T; ++i) {
    const int64_t t = backwards ? T - 1 - i : i;
    const Tensor& h = state[0];
    const Tensor in = select(xg, 0, t), rec = matmul(h, transpose(r, 0, 1));
    std::vector<Tensor> next;
    if (a.kind == RecurrentSpec::rnn) {
      next = {act(0, in + rec + rb)};
    } else if (a.kind == RecurrentSpec::gru) {  // gates z, r, h
      const Tensor z = act(0, gate(in, 0) + gate(rec, 0) + gate(rb.reshape(Shape{1, G * H}), 0)),
                   reset = act(0, gate(in, 1) + gate(rec, 1) + gate(rb.reshape(Shape{1, G * H}), 1)),
                   rbh = narrow(rb, 0, 2 * H, H);
      const Tensor candidate =
          a.linear_before_reset
              ? act(1, gate(in, 2) + reset * (gate(rec, 2) + rbh))
              : act(1, gate(in, 2) + matmul(reset * h, transpose(narrow(r, 0, 2 * H, H), 0, 1)) + rbh);
      next = {(1.0 - z) * candidate + z * h};
    } else {  // gates i, o, f, c; peepholes i, o, f
      const Tensor all = in + rec + rb, &c = state[1];
      Tensor pi, po, pf;
      if (op[kPeepholes].numel() > 0) {
        const Tensor p = select(op[kPeepholes], 0, d);
        pi = narrow(p, 0, 0, H), po = narrow(p, 0, H, H), pf = narrow(p, 0, 2 * H, H);
      }
      const Tensor ig = act(0, pi.defined() ? gate(all, 0) + pi * c : gate(all, 0));
      const Tensor fg = a.input_forget ? 1.0 - ig : act(0, pf.defined() ? gate(all, 2) + pf * c : gate(all, 2));
      const Tensor cell = fg * c + ig * act(1, gate(all, 3));
      const Tensor og = act(0, po.defined() ? gate(all, 1) + po * cell : gate(all, 1));
      next = {og * act(2, cell, /*clipped=*/false), cell};
    }
    if (lengths.defined()) {  // past its length a sequence keeps its state and outputs zeros
      const Tensor valid = cast(gt(lengths, full_like(lengths, static_cast<double>(t))), x.dtype());
      for (size_t s = 0; s < next.size(); ++s) next[s] = state[s] + valid * (next[s] - state[s]);
      if (sequence) ys[t] = next[0] * valid;
    } else if (sequence) {
      ys[t] = next[0];
    }
    state = std::move(next);
  }
  return {sequence ? stack(ys, 0) : Tensor(), state};
}

// Checks the operands against each other (a saved model's weights are outside input too).
void check_operands(const RecurrentSpec& a, const std::vector<Tensor>& op) {
  const Tensor &x = op[kX], &w = op[kW], &r = op[kR];
  STRATA_CHECK(x.dim() == 3 && w.dim() == 3 && r.dim() == 3, "onnx.recurrent: X ", x.shape().str(), ", W ",
               w.shape().str(), " and R ", r.shape().str(), " must have rank 3");
  const int64_t T = x.size(0), batch = x.size(1), D = w.size(0), H = r.size(2);
  const int64_t G = a.gates(), n = a.acts_per_direction();
  STRATA_CHECK((D == 1 || D == 2) && H >= 1 && w.size(1) == G * H && w.size(2) == x.size(2) && r.size(0) == D &&
                   r.size(1) == G * H && static_cast<int64_t>(a.acts.size()) == D * n && T >= 1,
               "onnx.recurrent: W ", w.shape().str(), " and R ", r.shape().str(), " do not fit X ", x.shape().str());
  auto fits = [&](Operand i, const Shape& shape, const char* what) {
    STRATA_CHECK(op[i].numel() == 0 || op[i].shape() == shape, "onnx.recurrent: ", what, " ", op[i].shape().str(),
                 " should be ", shape.str());
  };
  fits(kB, Shape{D, 2 * G * H}, "B");
  fits(kInitialH, Shape{D, batch, H}, "initial_h");
  fits(kInitialC, Shape{D, batch, H}, "initial_c");
  fits(kPeepholes, Shape{D, 3 * H}, "P");
  fits(kLengths, Shape{batch}, "sequence_lens");
  if (op[kLengths].numel() > 0)
    for (double v : cast(op[kLengths], kFloat64).to_vector<double>())
      STRATA_CHECK(v >= 1 && v <= static_cast<double>(T), "onnx.recurrent: sequence length ", v, " is outside 1 to ",
                   T);
}

// Output `which` (0 Y, 1 Y_h, 2 Y_c) in layout `batch_major`.
Tensor recurrent_output(const std::vector<Tensor>& operands, Ws w, bool batch_major, int which) {
  std::vector<Tensor> op = operands;
  STRATA_CHECK(op[kX].dim() == 3 && op[kW].dim() == 3 && op[kR].dim() == 3,
               "onnx.recurrent: X, W and R must have rank 3");
  if (std::any_of(op.begin(), op.end(), [](const Tensor& t) { return t.is_meta(); })) {
    // the output's shape alone, while the model is declared
    const int64_t T = op[kX].size(batch_major ? 1 : 0), batch = op[kX].size(batch_major ? 0 : 1), D = op[kW].size(0),
                  H = op[kR].size(2);
    const Shape shape = which == 0 ? (batch_major ? Shape{batch, T, D, H} : Shape{T, D, batch, H})
                                   : (batch_major ? Shape{batch, D, H} : Shape{D, batch, H});
    return Tensor::empty(shape, op[kX].dtype(), kMeta);
  }
  if (batch_major) {  // to time-major, as the definition's layout 0
    op[kX] = transpose(op[kX], 0, 1);
    for (Operand s : {kInitialH, kInitialC})
      if (op[s].numel() > 0) op[s] = transpose(op[s], 0, 1);
  }
  const int64_t D = op[kW].size(0);
  const RecurrentSpec a = attributes(w);
  check_operands(a, op);
  STRATA_CHECK(which < 2 || a.kind == RecurrentSpec::lstm, "onnx.recurrent: only LSTM has the Y_c output");
  std::vector<Tensor> ys, finals;
  for (int64_t d = 0; d < D; ++d) {
    DirectionResult r = run_direction(a, op, d, a.reverse || d == 1, which == 0);
    ys.push_back(r.y);
    finals.push_back(r.state[which == 2 ? 1 : 0]);
  }
  if (which == 0) {
    const Tensor y = stack(ys, 1);  // [T, D, B, H]
    return batch_major ? permute(y, Shape{2, 0, 1, 3}) : y;
  }
  const Tensor s = stack(finals, 0);  // [D, B, H]
  return batch_major ? transpose(s, 0, 1) : s;
}

std::string function_name(bool batch_major, int which) {
  return "onnx.recurrent.l" + std::to_string(int(batch_major)) + ".y" + std::to_string(which);
}

struct RecurrentValuesRegistration {
  RecurrentValuesRegistration() {
    // X is always a value (bit 0 clear); any of the other operands a constant.
    for (int constants = 0; constants < (1 << kOperands); constants += 2)
      for (const bool batch_major : {false, true})
        for (int which = 0; which < 3; ++which)
          nn::register_function(with_constants(function_name(batch_major, which), constants),
                                [=](const std::vector<Tensor>& xs, Ws w) {
                                  STRATA_CHECK(w.size() == static_cast<size_t>(std::popcount(unsigned(constants))) + 5,
                                               "onnx.recurrent: expected ", std::popcount(unsigned(constants)) + 5,
                                               " weights, got ", w.size());
                                  const std::vector<Tensor> op = function_operands(xs, w, constants, kOperands);
                                  return recurrent_output(op, {w.end() - 5, w.end()}, batch_major, which);
                                });
  }
};
const RecurrentValuesRegistration recurrent_values_registration;

// Input i's shape (a value's or a constant's), or none when the node lacks it.
std::optional<Shape> input_shape(const Importer& im, const pb::NodeProto& node, int i) {
  if (static_cast<int>(im.num_inputs(node)) <= i || node.input(i).empty()) return std::nullopt;
  return im.is_constant(node, i) ? im.constant(node, i).shape() : im.value(node, i).shape();
}

}  // namespace

RecurrentSpec recurrent_spec(const Importer& im, const pb::NodeProto& node) {
  RecurrentSpec s;
  s.kind = node.op_type() == "LSTM"  ? RecurrentSpec::lstm
           : node.op_type() == "GRU" ? RecurrentSpec::gru
                                     : RecurrentSpec::rnn;
  const std::string direction = string_attribute(node, "direction", "forward");
  require(direction == "forward" || direction == "reverse" || direction == "bidirectional", im, node,
          "direction '" + direction + "' is not one of forward, reverse, bidirectional");
  s.dirs = direction == "bidirectional" ? 2 : 1;
  s.reverse = direction == "reverse";
  const int64_t layout = int_attribute(node, "layout", 0);
  require(layout == 0 || layout == 1, im, node, "layout " + std::to_string(layout) + " is not 0 or 1");
  s.batch_major = layout == 1;
  const int64_t lbr = int_attribute(node, "linear_before_reset", 0), forget = int_attribute(node, "input_forget", 0);
  require(lbr == 0 || lbr == 1, im, node, "linear_before_reset " + std::to_string(lbr) + " is not 0 or 1");
  require(forget == 0 || forget == 1, im, node, "input_forget " + std::to_string(forget) + " is not 0 or 1");
  s.linear_before_reset = lbr == 1;
  s.input_forget = forget == 1;
  if (find_attribute(node, "clip") != nullptr) {
    s.clip = float_attribute(node, "clip", 0);
    require(s.clip > 0 && std::isfinite(s.clip), im, node, "clip " + std::to_string(s.clip) + " is not positive");
  }
  // Activations: one list per direction, forward first; the defaults of each kind.
  const size_t n = static_cast<size_t>(s.acts_per_direction()), total = n * static_cast<size_t>(s.dirs);
  std::vector<std::string> names;
  if (const auto* a = find_attribute(node, "activations")) names.assign(a->strings().begin(), a->strings().end());
  if (names.empty())
    for (int64_t d = 0; d < s.dirs; ++d)
      for (const char* name : s.kind == RecurrentSpec::lstm  ? std::vector<const char*>{"Sigmoid", "Tanh", "Tanh"}
                              : s.kind == RecurrentSpec::gru ? std::vector<const char*>{"Sigmoid", "Tanh"}
                                                             : std::vector<const char*>{"Tanh"})
        names.push_back(name);
  require(names.size() == total, im, node,
          "activations lists " + std::to_string(names.size()) + " functions; " + node.op_type() + " needs " +
              std::to_string(n) + " per direction (" + std::to_string(total) + ")");
  // activation_alpha and beta are read only where every listed function takes one: onnx leaves
  // open which functions consume them when some do not.
  std::vector<float> alphas, betas;
  if (const auto* a = find_attribute(node, "activation_alpha")) alphas.assign(a->floats().begin(), a->floats().end());
  if (const auto* b = find_attribute(node, "activation_beta")) betas.assign(b->floats().begin(), b->floats().end());
  for (size_t i = 0; i < names.size(); ++i) {
    const auto it = std::find(kRecurrentActivations.begin(), kRecurrentActivations.end(), names[i]);
    require(it != kRecurrentActivations.end(), im, node, "activation '" + names[i] + "' is not one ONNX defines");
    require(alphas.empty() || (takes_alpha(names[i]) && alphas.size() == total), im, node,
            "activation_alpha is supported only with one value per activation, each taking one ('" + names[i] +
                "' does not, or the count differs)");
    require(betas.empty() || (takes_beta(names[i]) && betas.size() == total), im, node,
            "activation_beta is supported only with one value per activation, each taking one ('" + names[i] +
                "' does not, or the count differs)");
    require(!((names[i] == "Affine" || names[i] == "ScaledTanh") && (alphas.empty() || betas.empty())), im, node,
            "activation '" + names[i] + "' needs activation_alpha and activation_beta (ONNX gives no defaults)");
    s.acts.push_back(it - kRecurrentActivations.begin());
    s.alpha.push_back(alphas.empty() ? default_alpha(names[i]) : alphas[i]);
    s.beta.push_back(betas.empty() ? 0.5f : betas[i]);  // HardSigmoid's default; the others take none
  }
  // W [dirs, gates * hidden, input] and R [dirs, gates * hidden, hidden], whether values or constants.
  const std::optional<Shape> x = input_shape(im, node, 0), w = input_shape(im, node, 1), r = input_shape(im, node, 2);
  require(x && w && r && x->size() == 3 && w->size() == 3 && r->size() == 3, im, node, "needs X, W and R of rank 3");
  const int64_t hidden = (*r)[2], gates = s.gates();
  require((*w)[0] == s.dirs && (*r)[0] == s.dirs && hidden >= 1 && (*w)[1] == gates * hidden &&
              (*r)[1] == gates * hidden && (*w)[2] == (*x)[2],
          im, node,
          "W " + w->str() + " and R " + r->str() + " do not fit X " + x->str() + " and " + std::to_string(s.dirs) +
              " direction(s)");
  const int64_t hidden_size = int_attribute(node, "hidden_size", hidden);
  require(hidden_size == hidden, im, node,
          "hidden_size " + std::to_string(hidden_size) + " differs from R's " + std::to_string(hidden));
  return s;
}

void recurrent_values(Importer& im, const pb::NodeProto& node, const RecurrentSpec& spec) {
  require(im.num_inputs(node) <= kOperands, im, node, "has more than 8 inputs");
  require(!(spec.kind != RecurrentSpec::lstm && im.num_inputs(node) > kInitialC), im, node,
          "only LSTM has initial_c and P inputs");
  const Shape x = *input_shape(im, node, kX);
  const int64_t batch = spec.batch_major ? x[0] : x[1];
  const int64_t D = spec.dirs, G = spec.gates(), H = input_shape(im, node, kR).value()[2];
  const Shape state = spec.batch_major ? Shape{batch, D, H} : Shape{D, batch, H};
  const std::vector<Shape> expected = {x, {}, {}, {D, 2 * G * H}, {batch}, state, state, {D, 3 * H}};
  std::vector<nn::Symbol> values;
  std::vector<std::pair<std::string, Tensor>> weights;
  int constants = 0;
  const char* names[kOperands] = {"X", "W", "R", "B", "sequence_lens", "initial_h", "initial_c", "P"};
  for (int i = 0; i < kOperands; ++i) {
    const std::optional<Shape> shape = input_shape(im, node, i);
    if (shape && i >= kB) {  // -1: a symbolic batch, on either side
      bool fits = shape->size() == expected[i].size();
      for (int a = 0; fits && a < shape->size(); ++a)
        fits = (*shape)[a] == expected[i][a] || (*shape)[a] == -1 || expected[i][a] == -1;
      require(fits, im, node,
              std::string("input ") + names[i] + " " + shape->str() + " does not fit; expected " + expected[i].str());
    }
    if (!shape || im.is_constant(node, i)) {
      require(i != kX, im, node, "input X must be computed (a constant one is not supported)");
      constants |= 1 << i;
      Tensor t = shape ? im.constant(node, i) : zeros(Shape{0});
      if (i == kLengths) t = cast(t, kInt64);  // int32 in the file
      weights.push_back({names[i], t});
    } else {
      values.push_back(im.value(node, i));
    }
  }
  weights.push_back({"options", from_vector(std::vector<int64_t>{spec.kind, spec.reverse, spec.linear_before_reset,
                                                                 spec.input_forget})});
  weights.push_back({"acts", from_vector(spec.acts)});
  weights.push_back({"alpha", from_vector(spec.alpha)});
  weights.push_back({"beta", from_vector(spec.beta)});
  weights.push_back({"clip", from_vector(std::vector<float>{spec.clip})});
  for (int which = 0; which < 3 && which < node.output_size(); ++which) {
    if (node.output(which).empty() || !im.used(node.output(which))) continue;
    require(which < 2 || spec.kind == RecurrentSpec::lstm, im, node, "has a third output (only LSTM's Y_c)");
    im.set_output(node,
                  im.function(node, with_constants(function_name(spec.batch_major, which), constants), values, weights),
                  which);
  }
}

}  // namespace strata::onnx::detail
