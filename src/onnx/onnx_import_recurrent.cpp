// ONNX RNN / LSTM / GRU nodes as Strata's recurrent layers (the reverse of
// onnx_export_recurrent.cpp): ONNX's W [1, gates * units, in] with LSTM gates i, o, f, c become
// Keras's kernel [in, gates * units] with gates i, f, c, o; the sequence is made batch-major for
// the layer and put back in the node's layout. Each output a node's consumers read is one layer
// (Y: the sequence, Y_h: the last output), holding its own copy of the weights.
#include <algorithm>
#include <functional>

#include "strata/core/error.hpp"
#include "strata/core/factory.hpp"
#include "strata/nn/layer_config.hpp"

#include "onnx_import.hpp"

namespace strata::onnx::detail {

namespace {

// Direction d of [directions, gates * units, cols] -> [cols, gates * units], gate block g taken
// from ONNX's block order[g].
Tensor gates_last(const Tensor& w, int64_t d, const std::vector<int>& order) {
  const int64_t n = w.size(1), cols = w.size(2), units = n / static_cast<int64_t>(order.size());
  const std::vector<float> v = w.to_vector<float>();
  std::vector<float> out(n * cols);
  for (size_t g = 0; g < order.size(); ++g)
    for (int64_t u = 0; u < units; ++u)
      for (int64_t c = 0; c < cols; ++c) out[c * n + g * units + u] = v[(d * n + order[g] * units + u) * cols + c];
  return from_vector(out, Shape{cols, n});
}

std::vector<float> reordered(const std::vector<float>& b, int64_t offset, const std::vector<int>& order, int64_t units) {
  std::vector<float> out;
  for (int g : order) out.insert(out.end(), b.begin() + offset + g * units, b.begin() + offset + (g + 1) * units);
  return out;
}

// Initial states (inputs 5 and 6) are accepted when they are constant zeros, Strata's start:
// PyTorch's exporter writes them so for a module called without them.
void check_no_state(const Importer& im, const pb::NodeProto& node, const std::string& where) {
  STRATA_CHECK(im.num_inputs(node) <= 7 && (im.num_inputs(node) <= 4 || node.input(4).empty()), where,
               ": sequence_lens and peepholes are not supported");
  for (int i = 5; i < static_cast<int>(im.num_inputs(node)); ++i) {
    if (node.input(i).empty()) continue;
    STRATA_CHECK(im.is_constant(node, i), where, ": initial states must be constant zeros");
    const Tensor s = im.constant(node, i);
    STRATA_CHECK(s.dtype() == kFloat32, where, ": initial states must be constant zeros");
    for (float v : s.to_vector<float>()) STRATA_CHECK(v == 0.0f, where, ": initial states must be constant zeros");
  }
}

}  // namespace

void recurrent(Importer& im, const pb::NodeProto& node) {
  const std::string op = node.op_type();
  const std::string where = im.what() + ": " + node_str(node);
  std::string kind = "simple_rnn", act;
  std::vector<int> order{0};  // Strata's gate g is ONNX's gate order[g]
  if (op == "LSTM") kind = "lstm", order = {0, 2, 3, 1};  // i, f, c, o from i, o, f, c
  if (op == "GRU") kind = "gru", order = {0, 1, 2};
  const nn::Symbol x = im.value(node, 0);
  const Tensor w = im.constant(node, 1), r = im.constant(node, 2);
  const std::string direction = string_attribute(node, "direction", "forward");
  STRATA_CHECK(direction == "forward" || direction == "reverse" || direction == "bidirectional", where,
               ": direction '", direction, "' is not one of forward, reverse, bidirectional");
  const int64_t dirs = direction == "bidirectional" ? 2 : 1;
  const int64_t units = int_attribute(node, "hidden_size", r.dim() == 3 ? r.size(2) : -1),
                gates = static_cast<int64_t>(order.size());
  STRATA_CHECK(x.shape().size() == 3 && w.dim() == 3 && r.dim() == 3 && w.size(0) == dirs && r.size(0) == dirs &&
                   units > 0 && w.size(1) == gates * units && r.size(1) == gates * units && r.size(2) == units &&
                   w.dtype() == kFloat32 && r.dtype() == kFloat32,
               where, ": weights W ", w.shape().str(), " and R ", r.shape().str(), " do not fit hidden_size ", units,
               " and ", dirs, " direction(s)");
  STRATA_CHECK(find_attribute(node, "clip") == nullptr && int_attribute(node, "input_forget", 0) == 0, where,
               ": clip and input_forget are not supported");
  check_no_state(im, node, where);
  if (kind == "gru")
    STRATA_CHECK(int_attribute(node, "linear_before_reset", 0) == 1, where,
                 ": only linear_before_reset = 1 (Keras's reset_after, PyTorch's GRU) is supported");
  if (const auto* a = find_attribute(node, "activations")) {
    // One list per direction, the same for both (Strata's layers have no other activations).
    std::vector<std::string> acts(a->strings().begin(), a->strings().end());
    const size_t per = acts.size() / dirs;
    STRATA_CHECK(acts.size() % dirs == 0 && std::equal(acts.begin(), acts.begin() + per, acts.end() - per, acts.end()),
                 where, ": the directions' activations must be the same");
    acts.resize(per);
    const bool simple_ok = kind == "simple_rnn" && acts.size() == 1 && (acts[0] == "Tanh" || acts[0] == "Relu");
    const bool default_ok = (kind == "lstm" && acts == std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"}) ||
                            (kind == "gru" && acts == std::vector<std::string>{"Sigmoid", "Tanh"});
    STRATA_CHECK(simple_ok || default_ok, where, ": only the default activations (or Relu for RNN) are supported");
    if (simple_ok && acts[0] == "Relu") act = "relu";
  }
  // Biases: Keras's LSTM and SimpleRNN have one (the sum of ONNX's two), its GRU both.
  std::vector<float> b(dirs * 2 * gates * units, 0.0f);
  if (im.num_inputs(node) > 3 && !node.input(3).empty()) {
    const Tensor bias = im.constant(node, 3);
    STRATA_CHECK(bias.dtype() == kFloat32 && bias.numel() == dirs * 2 * gates * units, where, ": B of shape ",
                 bias.shape().str(), " does not fit");
    b = bias.to_vector<float>();
  }
  auto weights = [&](int64_t d) {
    const int64_t offset = d * 2 * gates * units;
    std::vector<float> in_b = reordered(b, offset, order, units), rec_b = reordered(b, offset + gates * units, order, units);
    Tensor bias;
    if (kind == "gru") {
      in_b.insert(in_b.end(), rec_b.begin(), rec_b.end());
      bias = from_vector(in_b, Shape{2, gates * units});
    } else {
      for (size_t i = 0; i < in_b.size(); ++i) in_b[i] += rec_b[i];
      bias = from_vector(in_b);
    }
    return std::vector<std::pair<std::string, Tensor>>{
        {"kernel", gates_last(w, d, order)}, {"recurrent_kernel", gates_last(r, d, order)}, {"bias", bias}};
  };
  const bool batch_major = int_attribute(node, "layout", 0) == 1;
  const nn::Symbol seq = batch_major ? x : im.transpose(node, x, {1, 0, 2});
  // Direction d's layer: the second of a bidirectional node reads the sequence backwards.
  auto layer = [&](int64_t d, bool sequences) {
    const nlohmann::json config = {{"units", units},    {"num_layers", 1}, {"return_sequences", sequences},
                                   {"dropout", 0},      {"act", act},
                                   {"reverse", direction == "reverse" || d == 1}};
    return im.layer(node, kind, config, {seq}, weights(d));
  };
  // The directions' outputs, each with its direction axis, side by side on that axis.
  auto directions = [&](int64_t axis, const std::function<nn::Symbol(int64_t)>& output) {
    std::vector<nn::Symbol> ys;
    for (int64_t d = 0; d < dirs; ++d) ys.push_back(squeeze(im, node, output(d), {axis}, true));
    return dirs == 1 ? ys[0] : im.layer(node, "concat", {{"concat_dim", axis}}, ys);
  };
  STRATA_CHECK(node.output_size() < 3 || !im.used(node.output(2)), where, ": the Y_c output is not supported");
  if (node.output_size() > 0 && !node.output(0).empty() && im.used(node.output(0))) {
    // [batch, time, units] -> Y: [time, dirs, batch, units] or [batch, time, dirs, units].
    im.set_output(node, directions(batch_major ? 2 : 1, [&](int64_t d) {
      const nn::Symbol y = layer(d, true);
      return batch_major ? y : im.transpose(node, y, {1, 0, 2});
    }));
  }
  if (node.output_size() > 1 && !node.output(1).empty() && im.used(node.output(1))) {  // Y_h: [dirs, batch, units]
    STRATA_CHECK(dirs == 1 || batch_major, where,
                 ": the Y_h output of a bidirectional node is supported in layout 1 only (its directions would stack "
                 "on the batch axis)");
    im.set_output(node, directions(batch_major ? 1 : 0, [&](int64_t d) { return layer(d, false); }), 1);
  }
}

}  // namespace strata::onnx::detail
