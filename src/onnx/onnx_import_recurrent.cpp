// ONNX RNN / LSTM / GRU nodes as Strata's recurrent layers (the reverse of
// onnx_export_recurrent.cpp): ONNX's W [1, gates * units, in] with LSTM gates i, o, f, c become
// Keras's kernel [in, gates * units] with gates i, f, c, o; the sequence is made batch-major for
// the layer and put back in the node's layout. Each output a node's consumers read is one layer
// (Y: the sequence, Y_h: the last output), holding its own copy of the weights. Nodes the layers
// do not fit (fits_layers) are computed by ONNX's definition (onnx_import_recurrent_values.cpp).
#include <algorithm>
#include <functional>
#include <map>
#include <optional>

#include "strata/core/error.hpp"
#include "strata/core/factory.hpp"
#include "strata/nn/layer_config.hpp"

#include "onnx_import_recurrent.hpp"

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

// The node's activations as the layer's act and recurrent_act ("" where they are Strata's
// defaults, tanh and sigmoid), or nothing when a layer cannot compute them: only the activations
// without parameters that Strata names alike (Sigmoid, Tanh, Relu, Softsign, Softplus), and an
// LSTM's g and h the same (Strata's act is both).
struct RecurrentLayerActs {
  std::string act, recurrent_act;
};
std::optional<RecurrentLayerActs> recurrent_layer_acts(const RecurrentSpec& spec) {
  static const std::map<int64_t, std::string> strata_names = {
      {0, "sigmoid"}, {1, "tanh"}, {2, "relu"}, {9, "softsign"}, {10, "softplus"}};
  const int n = spec.acts_per_direction();
  for (int i = 0; i < n; ++i)
    if (strata_names.count(spec.acts[i]) == 0) return std::nullopt;
  auto named = [&](int64_t code, int64_t fallback) { return code == fallback ? "" : strata_names.at(code); };
  if (spec.kind == RecurrentSpec::rnn) return RecurrentLayerActs{named(spec.acts[0], 1), ""};
  if (spec.kind == RecurrentSpec::lstm && spec.acts[1] != spec.acts[2]) return std::nullopt;
  return RecurrentLayerActs{named(spec.acts[1], 1), named(spec.acts[0], 0)};
}

// Whether Strata's layers compute the node: constant float32 weights, initial states absent or
// constant zeros (Strata's start: PyTorch's exporter writes them so for a module called without
// them), no sequence_lens or peepholes, no clip or input_forget, activations the layers have
// (recurrent_layer_acts) the same in each direction, no Y_c, and a bidirectional Y_h only in
// layout 1 (its directions would otherwise stack on the batch axis). GRU's linear_before_reset
// 1 is Keras's reset_after, 0 the layer's reset_after = false. The rest is computed by ONNX's
// definition (recurrent_values).
bool fits_layers(const Importer& im, const pb::NodeProto& node, const RecurrentSpec& spec) {
  const int inputs = static_cast<int>(im.num_inputs(node));
  auto present = [&](int i) { return i < inputs && !node.input(i).empty(); };
  auto constant_f32 = [&](int i) { return im.is_constant(node, i) && im.constant(node, i).dtype() == kFloat32; };
  if (!constant_f32(1) || !constant_f32(2) || (present(3) && !constant_f32(3)) || present(4) || present(7))
    return false;
  for (int i = 5; i < 7; ++i) {
    if (!present(i)) continue;
    if (!constant_f32(i)) return false;
    for (float v : im.constant(node, i).to_vector<float>())
      if (v != 0.0f) return false;
  }
  if (spec.clip != 0 || spec.input_forget) return false;
  const size_t n = static_cast<size_t>(spec.acts_per_direction());
  const std::vector<int64_t> first(spec.acts.begin(), spec.acts.begin() + static_cast<std::ptrdiff_t>(n));
  if (!std::equal(first.begin(), first.end(), spec.acts.end() - static_cast<std::ptrdiff_t>(n))) return false;
  if (!recurrent_layer_acts(spec)) return false;
  if (node.output_size() > 2 && !node.output(2).empty() && im.used(node.output(2))) return false;
  return !(spec.dirs == 2 && !spec.batch_major && node.output_size() > 1 && !node.output(1).empty() &&
           im.used(node.output(1)));
}

}  // namespace

void recurrent(Importer& im, const pb::NodeProto& node) {
  const RecurrentSpec spec = recurrent_spec(im, node);
  if (!fits_layers(im, node, spec)) return recurrent_values(im, node, spec);
  const std::string op = node.op_type();
  const std::string where = im.what() + ": " + node_str(node);
  const RecurrentLayerActs acts = *recurrent_layer_acts(spec);
  const bool two_biases = spec.kind == RecurrentSpec::gru && spec.linear_before_reset;
  std::string kind = "simple_rnn";
  std::vector<int> order{0};  // Strata's gate g is ONNX's gate order[g]
  if (op == "LSTM") kind = "lstm", order = {0, 2, 3, 1};  // i, f, c, o from i, o, f, c
  if (op == "GRU") kind = "gru", order = {0, 1, 2};
  const nn::Symbol x = im.value(node, 0);
  const Tensor w = im.constant(node, 1), r = im.constant(node, 2);
  const int64_t dirs = spec.dirs, units = r.size(2), gates = static_cast<int64_t>(order.size());
  // Biases: Keras's LSTM, SimpleRNN and reset-before GRU have one (the sum of ONNX's two: the
  // recurrent bias of a reset-before GRU's n gate is added outside r ⊙ h·U, as the input's), its
  // reset-after GRU both.
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
    if (two_biases) {
      in_b.insert(in_b.end(), rec_b.begin(), rec_b.end());
      bias = from_vector(in_b, Shape{2, gates * units});
    } else {
      for (size_t i = 0; i < in_b.size(); ++i) in_b[i] += rec_b[i];
      bias = from_vector(in_b);
    }
    return std::vector<std::pair<std::string, Tensor>>{
        {"kernel", gates_last(w, d, order)}, {"recurrent_kernel", gates_last(r, d, order)}, {"bias", bias}};
  };
  const bool batch_major = spec.batch_major;
  const nn::Symbol seq = batch_major ? x : im.transpose(node, x, {1, 0, 2});
  // Direction d's layer: the second of a bidirectional node reads the sequence backwards.
  auto layer = [&](int64_t d, bool sequences) {
    const nlohmann::json config = {{"units", units},
                                   {"num_layers", 1},
                                   {"return_sequences", sequences},
                                   {"dropout", 0},
                                   {"act", acts.act},
                                   {"recurrent_act", acts.recurrent_act},
                                   {"reset_after", spec.kind != RecurrentSpec::gru || spec.linear_before_reset},
                                   {"reverse", spec.reverse || d == 1}};
    return im.layer(node, kind, config, {seq}, weights(d));
  };
  // The directions' outputs, each with its direction axis, side by side on that axis.
  auto directions = [&](int64_t axis, const std::function<nn::Symbol(int64_t)>& output) {
    std::vector<nn::Symbol> ys;
    for (int64_t d = 0; d < dirs; ++d) ys.push_back(squeeze(im, node, output(d), {axis}, true));
    return dirs == 1 ? ys[0] : im.layer(node, "concat", {{"concat_dim", axis}}, ys);
  };
  if (node.output_size() > 0 && !node.output(0).empty() && im.used(node.output(0))) {
    // [batch, time, units] -> Y: [time, dirs, batch, units] or [batch, time, dirs, units].
    im.set_output(node, directions(batch_major ? 2 : 1, [&](int64_t d) {
      const nn::Symbol y = layer(d, true);
      return batch_major ? y : im.transpose(node, y, {1, 0, 2});
    }));
  }
  if (node.output_size() > 1 && !node.output(1).empty() && im.used(node.output(1))) {  // Y_h: [dirs, batch, units]
    im.set_output(node, directions(batch_major ? 1 : 0, [&](int64_t d) { return layer(d, false); }), 1);
  }
}

}  // namespace strata::onnx::detail
