// Attention layers: multi-head attention and the Transformer's encoder and decoder layers and
// stacks.
// One header per layer family (docs/architecture.md, "nn"); each section below keeps its own notes.
#pragma once
#include <memory>
#include <utility>
#include <vector>

#include "strata/nn/layer.hpp"
#include "strata/nn/layers/activation.hpp"
#include "strata/nn/layers/dense.hpp"
#include "strata/nn/layers/norm.hpp"
#include "strata/nn/options.hpp"

// Attention: scaled dot-product attention as a function, and MultiheadAttention (PyTorch's
// nn.MultiheadAttention, batch-major [batch, seq, embed], TensorLayerX's weight names).
// Masks follow PyTorch: a bool mask is true where attention is NOT allowed; a float mask is
// added to the scores (0 keeps, -inf removes).
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

// Transformer layers (Vaswani et al.; PyTorch's nn.Transformer*, batch-major [batch, seq,
// d_model]): encoder and decoder layers, their stacks, and the encoder-decoder Transformer.
namespace strata::nn {

// PyTorch's defaults. Post-norm (x = norm(x + block(x))) unless norm_first
// (x = x + block(norm(x))). Dropout acts on the attention weights, after the feed-forward's
// activation and on each block's output, in training only. Saved as the layers' "options".
#define STRATA_TRANSFORMER_OPTIONS(X)                                                         \
  X(int64_t, dim_feedforward, 2048, at_least(1), "hidden features of the feed-forward block") \
  X(double, dropout, 0.1, between(0, 1), "dropout probability (< 1), in training only")       \
  X(Activation, activation, relu, any(), "the feed-forward block's activation")               \
  X(double, layer_norm_eps, 1e-5, at_least(0), "the LayerNorms' epsilon")                     \
  X(bool, norm_first, false, any(), "pre-norm x + block(norm(x)); false: post-norm norm(x + block(x))")
STRATA_OPTIONS(TransformerOptions, STRATA_TRANSFORMER_OPTIONS);

// An encoder or decoder layer's options (the same fields for both).
#define STRATA_TRANSFORMER_LAYER_OPTIONS(X)                                             \
  X(int64_t, d_model, 0, at_least(1), "features of each position; a multiple of nhead") \
  X(int64_t, nhead, 0, at_least(1), "attention heads")                                  \
  X(TransformerOptions, options, {}, any(), "dim_feedforward, dropout, activation, layer_norm_eps, norm_first")
STRATA_OPTIONS(TransformerLayerOptions, STRATA_TRANSFORMER_LAYER_OPTIONS);

// An encoder or decoder stack's options.
#define STRATA_TRANSFORMER_STACK_OPTIONS(X)                                             \
  X(int64_t, num_layers, 0, between(1, 10000), "layers in the stack")                   \
  X(int64_t, d_model, 0, at_least(1), "features of each position; a multiple of nhead") \
  X(int64_t, nhead, 0, at_least(1), "attention heads")                                  \
  X(TransformerOptions, options, {}, any(), "each layer's options")                     \
  X(bool, final_norm, false, any(), "a LayerNorm after the last layer")
STRATA_OPTIONS(TransformerStackOptions, STRATA_TRANSFORMER_STACK_OPTIONS);

// The encoder-decoder Transformer's options (PyTorch's defaults).
#define STRATA_TRANSFORMER_MODEL_OPTIONS(X)                                               \
  X(int64_t, d_model, 512, at_least(1), "features of each position; a multiple of nhead") \
  X(int64_t, nhead, 8, at_least(1), "attention heads")                                    \
  X(int64_t, num_encoder_layers, 6, between(1, 10000), "layers in the encoder")           \
  X(int64_t, num_decoder_layers, 6, between(1, 10000), "layers in the decoder")           \
  X(TransformerOptions, options, {}, any(), "every layer's options")
STRATA_OPTIONS(TransformerModelOptions, STRATA_TRANSFORMER_MODEL_OPTIONS);

// The call shapes shared by a layer and its stack: an encoder runs on (src, mask), a decoder
// on (tgt, memory, tgt_mask, memory_mask). Layer's call passes only tensors, so the masks of
// the call in progress wait in a member.
class EncoderCall : public Layer {
 public:
  using Layer::operator();  // layer(src): no mask
  // src [B, S, d_model] -> [B, S, d_model].
  Tensor operator()(const Tensor& src, const AttentionMask& mask);

 protected:
  using Layer::Layer;
  virtual Tensor encode(const Tensor& src, const AttentionMask& mask) = 0;
  Tensor forward(const Tensor& src) override { return encode(src, mask_); }

 private:
  AttentionMask mask_;
};

class DecoderCall : public Layer {
 public:
  using Layer::operator();  // layer({tgt, memory}): no masks
  // tgt [B, St, d_model], memory [B, Ss, d_model] -> [B, St, d_model].
  Tensor operator()(const Tensor& tgt, const Tensor& memory, const AttentionMask& tgt_mask = {},
                    const AttentionMask& memory_mask = {});

 protected:
  using Layer::Layer;
  virtual Tensor decode(const Tensor& tgt, const Tensor& memory, const AttentionMask& tgt_mask,
                        const AttentionMask& memory_mask) = 0;
  void build_many(const std::vector<Shape>&) override {}  // the children build themselves
  Tensor forward(const Tensor& x) override;
  Tensor forward_many(const std::vector<Tensor>& xs) override;

 private:
  struct Masks {
    AttentionMask tgt, memory;
  };
  Masks masks_;
};

// Self-attention then a feed-forward block [d_model -> dim_feedforward -> d_model].
// Children: self_attn, linear1, linear2, norm1, norm2 (named "<name>/self_attn", ...).
class TransformerEncoderLayer : public EncoderCall {
 public:
  using Options = TransformerLayerOptions;
  STRATA_LAYER_MOVABLE(TransformerEncoderLayer)
  explicit TransformerEncoderLayer(Options options, std::string name = "");
  TransformerEncoderLayer(int64_t d_model, int64_t nhead, TransformerOptions options = {}, std::string name = "");
  const Options& options() const { return options_; }

 private:
  Options options_;  // before the children, which are made from it

 public:
  MultiheadAttention self_attn;
  Dense linear1, linear2;
  LayerNorm norm1, norm2;

 protected:
  Tensor encode(const Tensor& src, const AttentionMask& mask) override;
};

// Self-attention (usually causal), attention over the encoder's output (memory), feed-forward.
// Children: self_attn, cross_attn, linear1, linear2, norm1, norm2, norm3.
class TransformerDecoderLayer : public DecoderCall {
 public:
  using Options = TransformerLayerOptions;
  STRATA_LAYER_MOVABLE(TransformerDecoderLayer)
  explicit TransformerDecoderLayer(Options options, std::string name = "");
  TransformerDecoderLayer(int64_t d_model, int64_t nhead, TransformerOptions options = {}, std::string name = "");
  const Options& options() const { return options_; }

 private:
  Options options_;  // before the children, which are made from it

 public:
  MultiheadAttention self_attn, cross_attn;
  Dense linear1, linear2;
  LayerNorm norm1, norm2, norm3;

 protected:
  Tensor decode(const Tensor& tgt, const Tensor& memory, const AttentionMask& tgt_mask,
                const AttentionMask& memory_mask) override;
};

// num_layers encoder layers, then a LayerNorm when final_norm (nn.Transformer has one).
class TransformerEncoder : public EncoderCall {
 public:
  using Options = TransformerStackOptions;
  STRATA_LAYER_MOVABLE(TransformerEncoder)
  explicit TransformerEncoder(Options options, std::string name = "");
  TransformerEncoder(int64_t num_layers, int64_t d_model, int64_t nhead, TransformerOptions options = {},
                     bool final_norm = false, std::string name = "");
  TransformerEncoderLayer& layer(size_t i) { return *layers_.at(i); }
  const Options& options() const { return options_; }

 protected:
  Tensor encode(const Tensor& src, const AttentionMask& mask) override;

 private:
  Options options_;
  std::vector<std::unique_ptr<TransformerEncoderLayer>> layers_;
  std::unique_ptr<LayerNorm> norm_;
};

// num_layers decoder layers, then a LayerNorm when final_norm.
class TransformerDecoder : public DecoderCall {
 public:
  using Options = TransformerStackOptions;
  STRATA_LAYER_MOVABLE(TransformerDecoder)
  explicit TransformerDecoder(Options options, std::string name = "");
  TransformerDecoder(int64_t num_layers, int64_t d_model, int64_t nhead, TransformerOptions options = {},
                     bool final_norm = false, std::string name = "");
  TransformerDecoderLayer& layer(size_t i) { return *layers_.at(i); }
  const Options& options() const { return options_; }

 protected:
  Tensor decode(const Tensor& tgt, const Tensor& memory, const AttentionMask& tgt_mask,
                const AttentionMask& memory_mask) override;

 private:
  Options options_;
  std::vector<std::unique_ptr<TransformerDecoderLayer>> layers_;
  std::unique_ptr<LayerNorm> norm_;
};

// Masks of a Transformer call: src (encoder self-attention), tgt (decoder self-attention; set
// tgt.causal for a language model), memory (decoder attention over the encoder's output,
// e.g. the source's key_padding_mask).
struct TransformerMasks {
  AttentionMask src, tgt, memory;
};

// Encoder and decoder stacks, each ending in a LayerNorm, as PyTorch's nn.Transformer.
// No embeddings or positional encodings: inputs are already [B, S, d_model].
class Transformer : public Layer {
 public:
  using Options = TransformerModelOptions;
  STRATA_LAYER_MOVABLE(Transformer)
  explicit Transformer(Options options, std::string name = "");
  explicit Transformer(int64_t d_model = 512, int64_t nhead = 8, int64_t num_encoder_layers = 6,
                       int64_t num_decoder_layers = 6, TransformerOptions options = {}, std::string name = "");
  using Layer::operator();  // transformer({src, tgt})
  // src [B, Ss, d_model], tgt [B, St, d_model] -> [B, St, d_model].
  Tensor operator()(const Tensor& src, const Tensor& tgt, const TransformerMasks& masks);
  const Options& options() const { return options_; }

 private:
  Options options_;  // before the stacks, which are made from it

 public:
  TransformerEncoder encoder;
  TransformerDecoder decoder;

 protected:
  void build_many(const std::vector<Shape>&) override {}  // the children build themselves
  Tensor forward(const Tensor& x) override;
  Tensor forward_many(const std::vector<Tensor>& xs) override;

 private:
  TransformerMasks masks_;
};

}  // namespace strata::nn
