// Recurrent layers (simple_rnn, lstm, gru; stacked, reversed) as ONNX RNN / LSTM / GRU nodes, one
// per stacked layer. Strata keeps Keras's batch-major sequences and weight layouts: kernel
// [in, gates * units] with LSTM gates i, f, c, o and GRU gates z, r, n (reset after or before:
// ONNX's linear_before_reset 1 or 0); ONNX wants W [1, gates * units, in] with LSTM gates i, o, f, c, and
// time-major sequences, so the sequence is transposed on the way in and out.
#include "strata/core/error.hpp"
#include "strata/core/factory.hpp"

#include "onnx_export.hpp"

namespace strata::onnx::detail {

namespace {

// [rows, gates * units] -> [1, gates * units, rows] with the gate blocks in `order`.
Tensor gates_first(const Tensor& w, const std::vector<int>& order) {
  const int64_t rows = w.size(0), units = w.size(1) / static_cast<int64_t>(order.size());
  const std::vector<float> v = w.to_vector<float>();
  std::vector<float> out(v.size());
  const int64_t cols = w.size(1);
  for (size_t g = 0; g < order.size(); ++g)
    for (int64_t u = 0; u < units; ++u)
      for (int64_t r = 0; r < rows; ++r)
        out[(g * units + u) * rows + r] = v[r * cols + order[g] * units + u];
  return from_vector(out, Shape{1, cols, rows});
}

// A [gates * units] bias in `order`, as ONNX's [input bias, recurrent bias] of [1, 2 * gates * units].
Tensor biases(const std::vector<float>& input, const std::vector<float>& recurrent, const std::vector<int>& order) {
  const int64_t units = static_cast<int64_t>(input.size() / order.size());
  std::vector<float> out;
  for (const auto* b : {&input, &recurrent})
    for (int g : order) out.insert(out.end(), b->begin() + g * units, b->begin() + (g + 1) * units);
  return from_vector(out, Shape{1, static_cast<int64_t>(out.size())});
}

}  // namespace

Value recurrent(Exporter& ex, const std::string& name, const nlohmann::json& c, std::vector<Value> args) {
  const std::string kind = ex.kind_of(name);
  const int64_t units = c.at("units").get<int64_t>(), layers = c.at("num_layers").get<int64_t>();
  const std::string act = c.at("act").get<std::string>(), gate_act = c.value("recurrent_act", std::string());
  const bool reset_after = c.value("reset_after", true);
  std::string op = "RNN";
  std::vector<int> order{0};
  if (kind == "lstm") op = "LSTM", order = {0, 3, 1, 2};  // i, f, c, o -> i, o, f, c
  if (kind == "gru") op = "GRU", order = {0, 1, 2};
  // Activations as ONNX names: Strata's empty act is Tanh, its empty recurrent_act Sigmoid.
  auto onnx_act = [&](const std::string& a, const char* fallback, bool gates) -> std::string {
    if (a.empty()) return fallback;
    if (a == "tanh") return "Tanh";
    if (a == "relu") return "Relu";
    if (a == "sigmoid" && kind != "simple_rnn") return "Sigmoid";
    STRATA_CHECK(false, "layer '", name, "': ", gates ? "recurrent_act" : "activation", " '", a, "' of a ", kind,
                 " has no ONNX form here (tanh, relu", kind != "simple_rnn" ? ", sigmoid" : "", " do)");
    return "";
  };
  std::vector<std::string> acts{onnx_act(act, "Tanh", false)};                               // RNN: f
  if (kind != "simple_rnn") acts.insert(acts.begin(), onnx_act(gate_act, "Sigmoid", true));  // f, g
  if (kind == "lstm") acts.push_back(acts.back());                                           // LSTM: f, g, h
  Value x = args.at(0);
  STRATA_CHECK(x.rank == 3, "layer '", name, "' exports over [batch, time, features] inputs");
  std::string seq = ex.fresh(name + "_time_major");
  set_ints(ex.node("Transpose", {ex.channels_last(x)}, seq), "perm", {1, 0, 2});
  std::string last_h;
  for (int64_t k = 0; k < layers; ++k) {
    const std::string prefix = layers == 1 ? "" : "cell_" + std::to_string(k) + "/";
    const Tensor kernel = ex.weight(name, prefix + "kernel"), recurrent = ex.weight(name, prefix + "recurrent_kernel"),
                 bias = ex.weight(name, prefix + "bias");
    const std::vector<float> b = bias.to_vector<float>();
    const int64_t n = static_cast<int64_t>(order.size()) * units;
    // A reset-after GRU's bias holds both halves; the others' recurrent half is zero.
    const bool two_biases = kind == "gru" && reset_after;
    const std::vector<float> input(b.begin(), b.begin() + n),
        rec = two_biases ? std::vector<float>(b.begin() + n, b.end()) : std::vector<float>(n, 0.0f);
    const std::string y = ex.fresh(name + "_y"), h = ex.fresh(name + "_h");
    pb::NodeProto& node = ex.node(op,
                                  {seq, ex.initializer(name + "_W", gates_first(kernel, order)),
                                   ex.initializer(name + "_R", gates_first(recurrent, order)),
                                   ex.initializer(name + "_B", biases(input, rec, order))},
                                  y);
    node.add_output(h);
    set_int(node, "hidden_size", units);
    if (c.at("reverse").get<bool>()) set_string(node, "direction", "reverse");
    // Keras's reset_after=False is ONNX's linear_before_reset 0 with a zero recurrent bias.
    if (kind == "gru") set_int(node, "linear_before_reset", reset_after ? 1 : 0);
    if (kind == "simple_rnn" || !act.empty() || !gate_act.empty()) {
      auto* a = node.add_attribute();
      a->set_name("activations");
      a->set_type(pb::AttributeProto::STRINGS);
      for (const std::string& s : acts) a->add_strings(s);
    }
    // Y [time, 1, batch, units] -> [time, batch, units], the next layer's input.
    seq = ex.fresh(name + "_seq");
    ex.node("Squeeze", {y, ex.ints_constant(name + "_axis1", {1})}, seq);
    last_h = h;
  }
  if (!c.at("return_sequences").get<bool>()) {
    const std::string out = ex.fresh(name + "_last");
    ex.node("Squeeze", {last_h, ex.ints_constant(name + "_axis0", {0})}, out);  // [1, batch, units]
    return Value{out, "", 2};
  }
  const std::string out = ex.fresh(name + "_batch_major");
  set_ints(ex.node("Transpose", {seq}, out), "perm", {1, 0, 2});
  return Value{out, "", 3};
}

// Bidirectional: its forward layer and the mirrored one (named "<layer>_backward", reading the
// other way) as two nodes, their outputs concatenated (forward first), as Strata does.
Value bidirectional(Exporter& ex, const std::string& name, const nlohmann::json& c, std::vector<Value> args) {
  const nlohmann::json& forward = c.at("layer");
  nlohmann::json backward = forward;
  backward["name"] = forward.at("name").get<std::string>() + "_backward";
  backward["config"]["reverse"] = !forward.at("config").at("reverse").get<bool>();
  Value a = ex.layer(forward, args), b = ex.layer(backward, args);
  const std::string y = ex.fresh(name + "_concat");
  set_int(ex.node("Concat", {ex.channels_last(a), ex.channels_last(b)}, y), "axis", -1);
  return Value{y, "", a.rank};
}

}  // namespace strata::onnx::detail
