// Attention layers as ONNX nodes (opset 17 has no attention operator): multi-head attention as
// projections, head reshapes, softmax(q kᵀ / sqrt(d)) v and the output projection; the
// Transformer encoder and decoder layers (post- or pre-norm) and stacks with LayerNormalization.
// Masks are a call argument, not part of a static model, so the exported graphs have none.
#include <cmath>

#include "strata/core/error.hpp"

#include "onnx_export.hpp"

namespace strata::onnx::detail {

namespace {

// x · W (+ b) over the last axis; W [in, out] as Strata's Dense keeps it.
std::string linear(Exporter& ex, const std::string& layer, const std::string& x, const std::string& w,
                   const std::string& b) {
  std::string y = ex.fresh(layer + "_matmul");
  ex.node("MatMul", {x, ex.initializer(layer + "_" + w, ex.weight(layer, w))}, y);
  if (b.empty()) return y;
  const std::string biased = ex.fresh(layer + "_bias");
  ex.node("Add", {y, ex.initializer(layer + "_" + b, ex.weight(layer, b))}, biased);
  return biased;
}

std::string layer_norm(Exporter& ex, const std::string& layer, const std::string& x, double eps) {
  const std::string y = ex.fresh(layer + "_norm");
  pb::NodeProto& n = ex.node("LayerNormalization",
                             {x, ex.initializer(layer + "_gamma", ex.weight(layer, "gamma")),
                              ex.initializer(layer + "_beta", ex.weight(layer, "beta"))},
                             y);
  set_int(n, "axis", -1);
  set_float(n, "epsilon", static_cast<float>(eps));
  return y;
}

// [B, S, E] -> [B, H, S, D] (or [B, H, D, S] for keys: `keys_last`).
std::string heads(Exporter& ex, const std::string& layer, const std::string& x, int64_t h, int64_t d, bool keys_last) {
  const std::string split = ex.fresh(layer + "_heads"), out = ex.fresh(layer + "_heads_t");
  ex.node("Reshape", {x, ex.ints_constant(layer + "_heads_shape", {0, 0, h, d})}, split);
  set_ints(ex.node("Transpose", {split}, out), "perm", keys_last ? std::vector<int64_t>{0, 2, 3, 1}
                                                                 : std::vector<int64_t>{0, 2, 1, 3});
  return out;
}

std::string attention(Exporter& ex, const std::string& layer, const std::string& q, const std::string& k,
                      const std::string& v, int64_t heads_n, bool bias) {
  const Tensor qw = ex.weight(layer, "q_weight");
  const int64_t e = qw.size(1), d = e / heads_n;
  STRATA_CHECK(heads_n > 0 && e % heads_n == 0, "layer '", layer, "': embed_dim must divide by num_heads");
  auto proj = [&](const std::string& x, const std::string& w) {
    return linear(ex, layer, x, w + "_weight", bias ? w + "_bias" : "");
  };
  const std::string qh = heads(ex, layer, proj(q, "q"), heads_n, d, false),
                    kh = heads(ex, layer, proj(k, "k"), heads_n, d, true),
                    vh = heads(ex, layer, proj(v, "v"), heads_n, d, false);
  const std::string scores = ex.fresh(layer + "_scores"), scaled = ex.fresh(layer + "_scaled"),
                    weights = ex.fresh(layer + "_weights"), mixed = ex.fresh(layer + "_mixed"),
                    merged = ex.fresh(layer + "_merged_t"), joined = ex.fresh(layer + "_merged");
  ex.node("MatMul", {qh, kh}, scores);
  ex.node("Mul", {scores, ex.float_constant(layer + "_scale", static_cast<float>(1.0 / std::sqrt(double(d))))}, scaled);
  set_int(ex.node("Softmax", {scaled}, weights), "axis", -1);
  ex.node("MatMul", {weights, vh}, mixed);
  set_ints(ex.node("Transpose", {mixed}, merged), "perm", {0, 2, 1, 3});
  ex.node("Reshape", {merged, ex.ints_constant(layer + "_merged_shape", {0, 0, e})}, joined);
  return linear(ex, layer, joined, "out_weight", bias ? "out_bias" : "");
}

std::string add(Exporter& ex, const std::string& layer, const std::string& a, const std::string& b) {
  const std::string y = ex.fresh(layer + "_residual");
  ex.node("Add", {a, b}, y);
  return y;
}

// The blocks of an encoder or decoder layer named `layer` (children layer/self_attn, layer/linear1,
// layer/norm1, ...): each x + block(norm_i(x)) when norm_first, else norm_i(x + block(x)), as
// Strata's transformer.cpp.
struct Blocks {
  Exporter& ex;
  const std::string& layer;
  const nlohmann::json& options;
  int64_t nhead;

  template <class Block>
  std::string residual(int i, const std::string& x, Block&& block) const {
    const std::string norm = layer + "/norm" + std::to_string(i);
    const double eps = options.at("layer_norm_eps").get<double>();
    if (options.at("norm_first").get<bool>()) return add(ex, layer, x, block(layer_norm(ex, norm, x, eps)));
    return layer_norm(ex, norm, add(ex, layer, x, block(x)), eps);
  }
  std::string attend(const std::string& child, const std::string& q, const std::string& kv) const {
    return attention(ex, layer + "/" + child, q, kv, kv, nhead, true);
  }
  std::string feed_forward(const std::string& h) const {
    const std::string l1 = layer + "/linear1";
    Value hidden{linear(ex, l1, h, "W", "b"), "", 3};
    hidden = ex.activation(hidden, options.at("activation").get<std::string>(), l1);
    return linear(ex, layer + "/linear2", hidden.last, "W", "b");
  }
};

std::string encoder_layer(Exporter& ex, const std::string& layer, const nlohmann::json& c, const std::string& x) {
  const Blocks b{ex, layer, c.at("options"), c.at("nhead").get<int64_t>()};
  const std::string y = b.residual(1, x, [&](const std::string& h) { return b.attend("self_attn", h, h); });
  return b.residual(2, y, [&](const std::string& h) { return b.feed_forward(h); });
}

std::string decoder_layer(Exporter& ex, const std::string& layer, const nlohmann::json& c, const std::string& x,
                          const std::string& memory) {
  const Blocks b{ex, layer, c.at("options"), c.at("nhead").get<int64_t>()};
  std::string y = b.residual(1, x, [&](const std::string& h) { return b.attend("self_attn", h, h); });
  y = b.residual(2, y, [&](const std::string& h) { return b.attend("cross_attn", h, memory); });
  return b.residual(3, y, [&](const std::string& h) { return b.feed_forward(h); });
}

// A stack's layers (name/layer0, ...) and its optional final norm (name/norm).
template <class Step>
Value stack(Exporter& ex, const std::string& name, const nlohmann::json& c, std::string x, Step&& step) {
  for (int64_t i = 0; i < c.at("num_layers").get<int64_t>(); ++i) x = step(name + "/layer" + std::to_string(i), x);
  if (c.at("final_norm").get<bool>())
    x = layer_norm(ex, name + "/norm", x, c.at("options").at("layer_norm_eps").get<double>());
  return Value{x, "", 3};
}

// [tgt, memory], each [batch, seq, d_model].
std::pair<std::string, std::string> decoder_inputs(Exporter& ex, const std::string& name, std::vector<Value>& args) {
  STRATA_CHECK(args.size() == 2 && args[0].rank == 3 && args[1].rank == 3, "layer '", name,
               "' exports over two [batch, seq, features] inputs (target and memory)");
  return {ex.channels_last(args[0]), ex.channels_last(args[1])};
}

}  // namespace

Value multihead_attention(Exporter& ex, const std::string& name, const nlohmann::json& c, std::vector<Value> args) {
  STRATA_CHECK(!args.empty() && args.size() <= 3, "layer '", name, "' takes 1 to 3 inputs");
  for (const Value& a : args) STRATA_CHECK(a.rank == 3, "layer '", name, "' exports over [batch, seq, features]");
  const std::string q = ex.channels_last(args[0]), kv = ex.channels_last(args[args.size() > 1 ? 1 : 0]),
                    v = ex.channels_last(args.back());
  return Value{attention(ex, name, q, kv, v, c.at("num_heads").get<int64_t>(), c.at("use_bias").get<bool>()), "", 3};
}

Value transformer_encoder_layer(Exporter& ex, const std::string& name, const nlohmann::json& c, std::vector<Value> args) {
  STRATA_CHECK(args.size() == 1 && args[0].rank == 3, "layer '", name, "' exports over one [batch, seq, features] input");
  return Value{encoder_layer(ex, name, c, ex.channels_last(args[0])), "", 3};
}

Value transformer_encoder(Exporter& ex, const std::string& name, const nlohmann::json& c, std::vector<Value> args) {
  STRATA_CHECK(args.size() == 1 && args[0].rank == 3, "layer '", name, "' exports over one [batch, seq, features] input");
  return stack(ex, name, c, ex.channels_last(args[0]),
               [&](const std::string& layer, const std::string& x) { return encoder_layer(ex, layer, c, x); });
}

Value transformer_decoder_layer(Exporter& ex, const std::string& name, const nlohmann::json& c, std::vector<Value> args) {
  const auto [tgt, memory] = decoder_inputs(ex, name, args);
  return Value{decoder_layer(ex, name, c, tgt, memory), "", 3};
}

Value transformer_decoder(Exporter& ex, const std::string& name, const nlohmann::json& c, std::vector<Value> args) {
  const auto inputs = decoder_inputs(ex, name, args);  // no structured binding: clang 14 cannot capture one
  return stack(ex, name, c, inputs.first, [&](const std::string& layer, const std::string& x) {
    return decoder_layer(ex, layer, c, x, inputs.second);
  });
}

}  // namespace strata::onnx::detail
