// Scaled dot-product attention composed of ops (two batched matmuls, one softmax), and
// MultiheadAttention on top of it: heads are [B, H, S, D] views, so one matmul covers them all.
#include "strata/nn/layers/attention.hpp"

#include "strata/nn/option_table.hpp"

#include <cmath>
#include <limits>

#include "nn/scoped_assign.hpp"
#include "strata/core/factory.hpp"
#include "strata/ops/dropout.hpp"
#include "strata/ops/elementwise.hpp"
#include "strata/ops/indexing.hpp"
#include "strata/ops/linalg.hpp"
#include "strata/ops/reduce.hpp"
#include "strata/ops/shape.hpp"
#include "strata/ops/softmax.hpp"

namespace strata::nn {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Whether `s` broadcasts to `target` without changing it (NumPy's rule, aligned at the end).
bool broadcasts_to(const Shape& s, const Shape& target) {
  if (s.size() > target.size()) return false;
  for (int i = 1; i <= s.size(); ++i) {
    int64_t a = s[s.size() - i], b = target[target.size() - i];
    if (a != 1 && a != b) return false;
  }
  return true;
}

// A bool mask (true = masked) as 0 / -inf in `dtype`; a float mask as it is, in `dtype`.
Tensor additive(const Tensor& mask, DType dtype) {
  if (mask.dtype() == kBool) return masked_fill(zeros(mask.shape(), dtype), mask, -kInf);
  STRATA_CHECK(is_floating(mask.dtype()), "attention: a mask must be bool or floating, got ", dtype_name(mask.dtype()));
  return mask.dtype() == dtype ? mask : cast(mask, dtype);
}

// The sum of two masks as one additive mask (either may be undefined).
Tensor merge(const Tensor& a, const Tensor& b, DType dtype) {
  if (!a.defined()) return b;
  if (!b.defined()) return a;
  return additive(a, dtype) + additive(b, dtype);
}

}  // namespace

Tensor causal_mask(int64_t sq, int64_t sk) {
  if (sk < 0) sk = sq;
  STRATA_CHECK(sq >= 0 && sk >= 0, "causal_mask: sizes must be non-negative, got ", sq, " and ", sk);
  return gt(reshape(arange(sk), {1, sk}), reshape(arange(sq), {sq, 1}));
}

Tensor scaled_dot_product_attention(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& mask, bool causal,
                                    double dropout_p, Tensor* weights, double scale) {
  STRATA_CHECK(q.defined() && k.defined() && v.defined(), "scaled_dot_product_attention: q, k and v must be defined");
  STRATA_CHECK(
      q.dim() >= 2 && k.dim() >= 2 && v.dim() >= 2 && q.shape().back() == k.shape().back() && k.size(-2) == v.size(-2),
      "scaled_dot_product_attention: expected q [..., Sq, D], k [..., Sk, D], v [..., Sk, Dv], got ", q.shape().str(),
      ", ", k.shape().str(), ", ", v.shape().str());
  const int64_t sq = q.size(-2), sk = k.size(-2);
  if (scale == 0) scale = 1.0 / std::sqrt(static_cast<double>(q.shape().back()));
  Tensor scores = matmul(q * scale, mT(k));  // scaling q costs Sq·D, scaling the scores Sq·Sk
  Tensor m = merge(mask, causal ? causal_mask(sq, sk) : Tensor(), scores.dtype());
  Tensor fully_masked;  // query rows with no key left: softmax would give NaN
  if (m.defined()) {
    Tensor am = additive(m, scores.dtype());
    STRATA_CHECK(broadcasts_to(am.shape(), scores.shape()), "scaled_dot_product_attention: mask of shape ",
                 am.shape().str(), " does not broadcast to the scores ", scores.shape().str());
    scores = scores + am;
    Tensor rows = amax(am, {-1}, true) == scalar_tensor(-kInf, am.dtype());
    if (sum(rows).item<int64_t>() > 0) {
      fully_masked = rows;
      scores = masked_fill(scores, rows, 0);
    }
  }
  Tensor w = softmax(scores, -1);
  if (fully_masked.defined()) w = masked_fill(w, fully_masked, 0);
  if (weights) *weights = w;
  if (dropout_p > 0) w = dropout(w, dropout_p, true);
  return matmul(w, v);
}

MultiheadAttention::MultiheadAttention(Options options, std::string name)
    : Layer("multiheadattention", std::move(name)), options_(std::move(options)) {
  check_options(options_, *this);
  expect(options_.embed_dim % options_.num_heads == 0, "embed_dim must be a multiple of num_heads, got embed_dim " +
                                                           std::to_string(options_.embed_dim) + " and num_heads " +
                                                           std::to_string(options_.num_heads));
  expect(options_.dropout < 1, "dropout must be in [0, 1), got " + std::to_string(options_.dropout));
}

MultiheadAttention::MultiheadAttention(int64_t embed_dim, int64_t num_heads, double dropout, bool use_bias,
                                       std::string name, Initializer w_init, Initializer b_init)
    : MultiheadAttention(Options{.embed_dim = embed_dim,
                                 .num_heads = num_heads,
                                 .dropout = dropout,
                                 .use_bias = use_bias,
                                 .w_init = std::move(w_init),
                                 .b_init = std::move(b_init)},
                         std::move(name)) {}

void MultiheadAttention::build(const Shape& s) { build_many({s, s, s}); }

void MultiheadAttention::build_many(const std::vector<Shape>& shapes) {
  expect(shapes.size() >= 1 && shapes.size() <= 3,
         "takes query, key and value (or query and one tensor for key and value), got " +
             std::to_string(shapes.size()) + " inputs");
  const Shape& kshape = shapes.size() > 1 ? shapes[1] : shapes[0];
  const Shape& vshape = shapes.back();
  for (const Shape* s : {&shapes[0], &kshape, &vshape})
    expect(s->size() == 3, "expects inputs of shape [batch, seq, features], got " + s->str());
  const int64_t E = options_.embed_dim;
  expect(shapes[0].back() == E,
         "expected a query of shape [batch, seq, " + std::to_string(E) + "], got " + shapes[0].str());
  kdim_ = kshape.back();
  vdim_ = vshape.back();
  const Initializer& w_init = options_.w_init;
  q_weight = add_weight("q_weight", {E, E}, w_init);
  k_weight = add_weight("k_weight", {kdim_, E}, w_init);
  v_weight = add_weight("v_weight", {vdim_, E}, w_init);
  out_weight = add_weight("out_weight", {E, E}, w_init);
  if (options_.use_bias) {
    const Initializer& b_init = options_.b_init;
    q_bias = add_weight("q_bias", {E}, b_init);
    k_bias = add_weight("k_bias", {E}, b_init);
    v_bias = add_weight("v_bias", {E}, b_init);
    out_bias = add_weight("out_bias", {E}, b_init);
  }
}

Tensor MultiheadAttention::forward(const Tensor& x) { return attend(x, x, x); }

Tensor MultiheadAttention::forward_many(const std::vector<Tensor>& xs) {
  expect(xs.size() >= 1 && xs.size() <= 3,
         "takes query, key and value (or query and one tensor for key and value), got " + std::to_string(xs.size()) +
             " inputs");
  return attend(xs[0], xs.size() > 1 ? xs[1] : xs[0], xs.back());
}

Tensor MultiheadAttention::operator()(const Tensor& query, const Tensor& key, const Tensor& value,
                                      const AttentionMask& mask) {
  ScopedAssign<CallArgs> args(args_, CallArgs{mask, false, true});
  return Layer::operator()(std::vector<Tensor>{query, key, value});
}

std::pair<Tensor, Tensor> MultiheadAttention::with_weights(const Tensor& query, const Tensor& key, const Tensor& value,
                                                           const AttentionMask& mask, bool average_heads) {
  ScopedAssign<CallArgs> args(args_, CallArgs{mask, true, average_heads});
  Tensor y = Layer::operator()(std::vector<Tensor>{query, key, value});
  return {y, std::exchange(last_weights_, Tensor())};
}

Tensor MultiheadAttention::combined_mask(const AttentionMask& m, int64_t batch, int64_t sq, int64_t sk,
                                         DType dtype) const {
  Tensor padding, attn = m.attn_mask;
  if (m.key_padding_mask.defined()) {
    expect(m.key_padding_mask.shape() == Shape({batch, sk}), "expected a key_padding_mask of shape [" +
                                                                 std::to_string(batch) + ", " + std::to_string(sk) +
                                                                 "], got " + m.key_padding_mask.shape().str());
    padding = reshape(m.key_padding_mask, {batch, 1, 1, sk});
  }
  if (attn.defined()) {
    const int64_t heads = options_.num_heads;
    const Shape per_head{batch * heads, sq, sk};
    bool ok = attn.dim() == 3 ? attn.shape() == per_head : broadcasts_to(attn.shape(), {batch, heads, sq, sk});
    expect(ok, "expected an attn_mask of shape [" + std::to_string(sq) + ", " + std::to_string(sk) + "], " +
                   per_head.str() + " or one that broadcasts to [" + std::to_string(batch) + ", " +
                   std::to_string(heads) + ", " + std::to_string(sq) + ", " + std::to_string(sk) + "], got " +
                   attn.shape().str());
    if (attn.dim() == 3) attn = reshape(attn, {batch, heads, sq, sk});
  }
  return merge(padding, attn, dtype);
}

Tensor MultiheadAttention::attend(const Tensor& query, const Tensor& key, const Tensor& value) {
  const int64_t E = options_.embed_dim;
  expect(query.dim() == 3 && query.shape().back() == E,
         "expected a query of shape [batch, seq, " + std::to_string(E) + "], got " + query.shape().str());
  expect(key.dim() == 3 && key.shape().back() == kdim_ && key.size(0) == query.size(0),
         "expected a key of shape [" + std::to_string(query.size(0)) + ", seq, " + std::to_string(kdim_) + "], got " +
             key.shape().str());
  expect(
      value.dim() == 3 && value.shape().back() == vdim_ && value.size(0) == key.size(0) && value.size(1) == key.size(1),
      "expected a value of shape [" + std::to_string(key.size(0)) + ", " + std::to_string(key.size(1)) + ", " +
          std::to_string(vdim_) + "], got " + value.shape().str());
  const int64_t B = query.size(0), sq = query.size(1), sk = key.size(1), H = options_.num_heads, D = E / H;
  // [B, S, E] -> [B, H, S, D]: a view; the matmuls copy it into place once.
  auto heads = [&](const Tensor& x, const Tensor& w, const Tensor& b, int64_t s) {
    return permute(reshape(linear(x, w, b), {B, s, H, D}), {0, 2, 1, 3});
  };
  Tensor mask = combined_mask(args_.mask, B, sq, sk, query.dtype());
  Tensor weights;
  Tensor o = scaled_dot_product_attention(heads(query, q_weight, q_bias, sq), heads(key, k_weight, k_bias, sk),
                                          heads(value, v_weight, v_bias, sk), mask, args_.mask.causal,
                                          training() ? options_.dropout : 0, args_.want_weights ? &weights : nullptr);
  if (args_.want_weights) last_weights_ = args_.average_heads ? mean(weights, {1}) : weights;
  return linear(reshape(permute(o, {0, 2, 1, 3}), {B, sq, E}), out_weight, out_bias);
}

STRATA_DEFINE_OPTIONS(MultiheadAttentionOptions, STRATA_MULTIHEAD_ATTENTION_OPTIONS)
STRATA_LAYER("multiheadattention", MultiheadAttention);

}  // namespace strata::nn
