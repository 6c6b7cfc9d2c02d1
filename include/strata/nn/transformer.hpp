// Transformer layers (Vaswani et al.; PyTorch's nn.Transformer*, batch-major [batch, seq,
// d_model]): encoder and decoder layers, their stacks, and the encoder-decoder Transformer.
#pragma once
#include <memory>
#include <vector>

#include "strata/nn/activation.hpp"
#include "strata/nn/attention.hpp"
#include "strata/nn/dense.hpp"
#include "strata/nn/norm.hpp"

namespace strata::nn {

// PyTorch's defaults. Post-norm (x = norm(x + block(x))) unless norm_first
// (x = x + block(norm(x))). Dropout acts on the attention weights, after the feed-forward's
// activation and on each block's output, in training only.
struct TransformerOptions {
  int64_t dim_feedforward = 2048;
  double dropout = 0.1;
  Activation activation = relu;
  double layer_norm_eps = 1e-5;
  bool norm_first = false;
};

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
  STRATA_LAYER_MOVABLE(TransformerEncoderLayer)
  void get_config(nlohmann::json& config) const override;
  TransformerEncoderLayer(int64_t d_model, int64_t nhead, TransformerOptions options = {}, std::string name = "");

  MultiheadAttention self_attn;
  Dense linear1, linear2;
  LayerNorm norm1, norm2;
  const TransformerOptions& options() const { return options_; }

 protected:
  Tensor encode(const Tensor& src, const AttentionMask& mask) override;

 private:
  TransformerOptions options_;
};

// Self-attention (usually causal), attention over the encoder's output (memory), feed-forward.
// Children: self_attn, cross_attn, linear1, linear2, norm1, norm2, norm3.
class TransformerDecoderLayer : public DecoderCall {
 public:
  STRATA_LAYER_MOVABLE(TransformerDecoderLayer)
  void get_config(nlohmann::json& config) const override;
  TransformerDecoderLayer(int64_t d_model, int64_t nhead, TransformerOptions options = {}, std::string name = "");

  MultiheadAttention self_attn, cross_attn;
  Dense linear1, linear2;
  LayerNorm norm1, norm2, norm3;
  const TransformerOptions& options() const { return options_; }

 protected:
  Tensor decode(const Tensor& tgt, const Tensor& memory, const AttentionMask& tgt_mask,
                const AttentionMask& memory_mask) override;

 private:
  TransformerOptions options_;
};

// num_layers encoder layers, then a LayerNorm when final_norm (nn.Transformer has one).
class TransformerEncoder : public EncoderCall {
 public:
  STRATA_LAYER_MOVABLE(TransformerEncoder)
  void get_config(nlohmann::json& config) const override;
  TransformerEncoder(int64_t num_layers, int64_t d_model, int64_t nhead, TransformerOptions options = {},
                     bool final_norm = false, std::string name = "");
  TransformerEncoderLayer& layer(size_t i) { return *layers_.at(i); }

 protected:
  Tensor encode(const Tensor& src, const AttentionMask& mask) override;

 private:
  std::vector<std::unique_ptr<TransformerEncoderLayer>> layers_;
  std::unique_ptr<LayerNorm> norm_;
};

// num_layers decoder layers, then a LayerNorm when final_norm.
class TransformerDecoder : public DecoderCall {
 public:
  STRATA_LAYER_MOVABLE(TransformerDecoder)
  void get_config(nlohmann::json& config) const override;
  TransformerDecoder(int64_t num_layers, int64_t d_model, int64_t nhead, TransformerOptions options = {},
                     bool final_norm = false, std::string name = "");
  TransformerDecoderLayer& layer(size_t i) { return *layers_.at(i); }

 protected:
  Tensor decode(const Tensor& tgt, const Tensor& memory, const AttentionMask& tgt_mask,
                const AttentionMask& memory_mask) override;

 private:
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
  STRATA_LAYER_MOVABLE(Transformer)
  void get_config(nlohmann::json& config) const override;
  explicit Transformer(int64_t d_model = 512, int64_t nhead = 8, int64_t num_encoder_layers = 6,
                       int64_t num_decoder_layers = 6, TransformerOptions options = {}, std::string name = "");
  using Layer::operator();  // transformer({src, tgt})
  // src [B, Ss, d_model], tgt [B, St, d_model] -> [B, St, d_model].
  Tensor operator()(const Tensor& src, const Tensor& tgt, const TransformerMasks& masks);

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
