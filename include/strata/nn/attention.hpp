// Attention: scaled dot-product attention as a function, and MultiheadAttention (PyTorch's
// nn.MultiheadAttention, batch-major [batch, seq, embed], TensorLayerX's weight names).
// Masks follow PyTorch: a bool mask is true where attention is NOT allowed; a float mask is
// added to the scores (0 keeps, -inf removes).
#pragma once
#include <utility>

#include "strata/nn/layer.hpp"
#include "strata/nn/options.hpp"

namespace strata::nn {

// What a query may not attend to. Any part may be left out.
struct AttentionMask {
  Tensor attn_mask;         // [Sq, Sk], PyTorch's [B * heads, Sq, Sk], or broadcastable to [B, heads, Sq, Sk]
  Tensor key_padding_mask;  // [B, Sk]: true (or -inf) at padded keys
  bool causal = false;      // query i sees keys 0..i only (top-left aligned, as PyTorch)
};

// softmax(q kᵀ · scale + mask) v for q [..., Sq, D], k [..., Sk, D], v [..., Sk, Dv] (leading
// axes broadcast) -> [..., Sq, Dv]. mask (bool or additive float) broadcasts to [..., Sq, Sk].
// scale = 0 means 1 / sqrt(D). dropout_p (> 0 only in training) drops attention weights.
// A query row whose keys are all masked gets zero weights (PyTorch gives NaN).
// `weights`, when given, receives the attention weights [..., Sq, Sk] before dropout.
Tensor scaled_dot_product_attention(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& mask = Tensor(),
                                    bool causal = false, double dropout_p = 0, Tensor* weights = nullptr,
                                    double scale = 0);

// Bool [Sq, Sk], true above the diagonal: the future a causal query may not see.
Tensor causal_mask(int64_t sq, int64_t sk = -1);

// Multi-head attention. Weights (Strata's [in, out] layout): q_weight [E, E], k_weight
// [kdim, E], v_weight [vdim, E], out_weight [E, E], then q_bias, k_bias, v_bias, out_bias [E];
// kdim and vdim are inferred from key and value at the first call. Dropout acts on the
// attention weights in training.
#define STRATA_MULTIHEAD_ATTENTION_OPTIONS(X)                                                   \
  X(int64_t, embed_dim, 0, at_least(1), "query and output features E; a multiple of num_heads") \
  X(int64_t, num_heads, 0, at_least(1), "heads, each of E / num_heads features")                \
  X(double, dropout, 0, between(0, 1), "on the attention weights, in training only; < 1")       \
  X(bool, use_bias, true, any(), "adds the biases q_bias, k_bias, v_bias, out_bias")            \
  X(Initializer, w_init, glorot_uniform(), not_saved(), "initializer of the weights")           \
  X(Initializer, b_init, zeros_init(), not_saved(), "initializer of the biases")
STRATA_OPTIONS(MultiheadAttentionOptions, STRATA_MULTIHEAD_ATTENTION_OPTIONS);

class MultiheadAttention : public Layer {
 public:
  using Options = MultiheadAttentionOptions;
  STRATA_LAYER_MOVABLE(MultiheadAttention)
  explicit MultiheadAttention(Options options, std::string name = "");
  MultiheadAttention(int64_t embed_dim, int64_t num_heads, double dropout = 0, bool use_bias = true,
                     std::string name = "", Initializer w_init = glorot_uniform(), Initializer b_init = zeros_init());
  Tensor q_weight, k_weight, v_weight, out_weight, q_bias, k_bias, v_bias, out_bias;

  using Layer::operator();  // layer(x): self-attention; layer({q, kv}) or layer({q, k, v}): no masks
  // query [B, Sq, E], key [B, Sk, kdim], value [B, Sk, vdim] -> [B, Sq, E].
  Tensor operator()(const Tensor& query, const Tensor& key, const Tensor& value, const AttentionMask& mask = {});
  // The output and the attention weights (before dropout): averaged over heads [B, Sq, Sk],
  // or per head [B, heads, Sq, Sk].
  std::pair<Tensor, Tensor> with_weights(const Tensor& query, const Tensor& key, const Tensor& value,
                                         const AttentionMask& mask = {}, bool average_heads = true);

  int64_t embed_dim() const { return options_.embed_dim; }
  int64_t num_heads() const { return options_.num_heads; }
  const Options& options() const { return options_; }

 protected:
  void build(const Shape& input_shape) override;
  void build_many(const std::vector<Shape>& input_shapes) override;
  Tensor forward(const Tensor& x) override;
  Tensor forward_many(const std::vector<Tensor>& xs) override;

 private:
  // The mask and weight request of the call in progress (Layer's call passes only tensors).
  struct CallArgs {
    AttentionMask mask;
    bool want_weights = false, average_heads = true;
  };
  Tensor attend(const Tensor& query, const Tensor& key, const Tensor& value);
  Tensor combined_mask(const AttentionMask& m, int64_t batch, int64_t sq, int64_t sk, DType dtype) const;

  Options options_;
  int64_t kdim_ = -1, vdim_ = -1;
  CallArgs args_;
  Tensor last_weights_;
};

}  // namespace strata::nn
