#include "strata/nn/transformer.hpp"

#include "strata/nn/layer_config.hpp"

#include "nn/scoped_assign.hpp"
#include "strata/ops/dropout.hpp"
#include "strata/ops/elementwise.hpp"

namespace strata::nn {
namespace {

// PyTorch's per-position LayerNorm (TensorLayer's LayerNorm normalises from axis 1 by default).
LayerNorm position_norm(double eps, const std::string& name) { return LayerNorm({}, eps, -1, -1, true, true, name); }

std::unique_ptr<LayerNorm> final_norm_of(bool on, double eps, const std::string& name) {
  return on ? std::make_unique<LayerNorm>(position_norm(eps, name + "/norm")) : nullptr;
}

// x + block(norm(x)) when norm_first, else norm(x + block(x)).
template <class Block>
Tensor residual(const Tensor& x, LayerNorm& norm, bool norm_first, Block&& block) {
  return norm_first ? x + block(norm(x)) : norm(x + block(x));
}

Tensor feed_forward(const Tensor& x, Dense& linear1, Dense& linear2, double p, bool training) {
  return dropout(linear2(dropout(linear1(x), p, training)), p, training);
}

}  // namespace

Tensor EncoderCall::operator()(const Tensor& src, const AttentionMask& mask) {
  ScopedAssign<AttentionMask> scope(mask_, mask);
  return Layer::operator()(src);
}

Tensor DecoderCall::operator()(const Tensor& tgt, const Tensor& memory, const AttentionMask& tgt_mask,
                               const AttentionMask& memory_mask) {
  ScopedAssign<Masks> scope(masks_, Masks{tgt_mask, memory_mask});
  return Layer::operator()(std::vector<Tensor>{tgt, memory});
}

Tensor DecoderCall::forward(const Tensor&) {
  expect(false, "takes two inputs, tgt and memory, got one");
  return Tensor();
}

Tensor DecoderCall::forward_many(const std::vector<Tensor>& xs) {
  expect(xs.size() == 2, "takes two inputs, tgt and memory, got " + std::to_string(xs.size()));
  return decode(xs[0], xs[1], masks_.tgt, masks_.memory);
}

TransformerEncoderLayer::TransformerEncoderLayer(int64_t d_model, int64_t nhead, TransformerOptions options,
                                                 std::string name)
    : EncoderCall("transformerencoderlayer", std::move(name)),
      self_attn(d_model, nhead, options.dropout, true, this->name() + "/self_attn"),
      linear1(options.dim_feedforward, options.activation, this->name() + "/linear1"),
      linear2(d_model, {}, this->name() + "/linear2"),
      norm1(position_norm(options.layer_norm_eps, this->name() + "/norm1")),
      norm2(position_norm(options.layer_norm_eps, this->name() + "/norm2")),
      options_(std::move(options)) {}

Tensor TransformerEncoderLayer::encode(const Tensor& src, const AttentionMask& mask) {
  const double p = options_.dropout;
  const bool on = training();
  Tensor x = residual(src, norm1, options_.norm_first,
                      [&](const Tensor& h) { return dropout(self_attn(h, h, h, mask), p, on); });
  return residual(x, norm2, options_.norm_first,
                  [&](const Tensor& h) { return feed_forward(h, linear1, linear2, p, on); });
}

TransformerDecoderLayer::TransformerDecoderLayer(int64_t d_model, int64_t nhead, TransformerOptions options,
                                                 std::string name)
    : DecoderCall("transformerdecoderlayer", std::move(name)),
      self_attn(d_model, nhead, options.dropout, true, this->name() + "/self_attn"),
      cross_attn(d_model, nhead, options.dropout, true, this->name() + "/cross_attn"),
      linear1(options.dim_feedforward, options.activation, this->name() + "/linear1"),
      linear2(d_model, {}, this->name() + "/linear2"),
      norm1(position_norm(options.layer_norm_eps, this->name() + "/norm1")),
      norm2(position_norm(options.layer_norm_eps, this->name() + "/norm2")),
      norm3(position_norm(options.layer_norm_eps, this->name() + "/norm3")),
      options_(std::move(options)) {}

Tensor TransformerDecoderLayer::decode(const Tensor& tgt, const Tensor& memory, const AttentionMask& tgt_mask,
                                       const AttentionMask& memory_mask) {
  const double p = options_.dropout;
  const bool on = training(), first = options_.norm_first;
  Tensor x = residual(tgt, norm1, first,
                      [&](const Tensor& h) { return dropout(self_attn(h, h, h, tgt_mask), p, on); });
  x = residual(x, norm2, first,
               [&](const Tensor& h) { return dropout(cross_attn(h, memory, memory, memory_mask), p, on); });
  return residual(x, norm3, first, [&](const Tensor& h) { return feed_forward(h, linear1, linear2, p, on); });
}

TransformerEncoder::TransformerEncoder(int64_t num_layers, int64_t d_model, int64_t nhead, TransformerOptions options,
                                       bool final_norm, std::string name)
    : EncoderCall("transformerencoder", std::move(name)),
      norm_(final_norm_of(final_norm, options.layer_norm_eps, this->name())) {
  expect(num_layers > 0, "num_layers must be positive, got " + std::to_string(num_layers));
  for (int64_t i = 0; i < num_layers; ++i)
    layers_.push_back(std::make_unique<TransformerEncoderLayer>(d_model, nhead, options,
                                                                this->name() + "/layer" + std::to_string(i)));
}

Tensor TransformerEncoder::encode(const Tensor& src, const AttentionMask& mask) {
  Tensor x = src;
  for (auto& layer : layers_) x = (*layer)(x, mask);
  return norm_ ? (*norm_)(x) : x;
}

TransformerDecoder::TransformerDecoder(int64_t num_layers, int64_t d_model, int64_t nhead, TransformerOptions options,
                                       bool final_norm, std::string name)
    : DecoderCall("transformerdecoder", std::move(name)),
      norm_(final_norm_of(final_norm, options.layer_norm_eps, this->name())) {
  expect(num_layers > 0, "num_layers must be positive, got " + std::to_string(num_layers));
  for (int64_t i = 0; i < num_layers; ++i)
    layers_.push_back(std::make_unique<TransformerDecoderLayer>(d_model, nhead, options,
                                                                this->name() + "/layer" + std::to_string(i)));
}

Tensor TransformerDecoder::decode(const Tensor& tgt, const Tensor& memory, const AttentionMask& tgt_mask,
                                  const AttentionMask& memory_mask) {
  Tensor x = tgt;
  for (auto& layer : layers_) x = (*layer)(x, memory, tgt_mask, memory_mask);
  return norm_ ? (*norm_)(x) : x;
}

Transformer::Transformer(int64_t d_model, int64_t nhead, int64_t num_encoder_layers, int64_t num_decoder_layers,
                         TransformerOptions options, std::string name)
    : Layer("transformer", std::move(name)),
      encoder(num_encoder_layers, d_model, nhead, options, true, this->name() + "/encoder"),
      decoder(num_decoder_layers, d_model, nhead, options, true, this->name() + "/decoder") {}

Tensor Transformer::operator()(const Tensor& src, const Tensor& tgt, const TransformerMasks& masks) {
  ScopedAssign<TransformerMasks> scope(masks_, masks);
  return Layer::operator()(std::vector<Tensor>{src, tgt});
}

Tensor Transformer::forward(const Tensor&) {
  expect(false, "takes two inputs, src and tgt, got one");
  return Tensor();
}

Tensor Transformer::forward_many(const std::vector<Tensor>& xs) {
  expect(xs.size() == 2, "takes two inputs, src and tgt, got " + std::to_string(xs.size()));
  Tensor memory = encoder(xs[0], masks_.src);
  return decoder(xs[1], memory, masks_.tgt, masks_.memory);
}

using nlohmann::json;


json transformer_options_config(const TransformerOptions& o, const Layer& owner) {
  return {{"dim_feedforward", o.dim_feedforward}, {"dropout", o.dropout},
          {"activation", activation_name(o.activation, owner)}, {"layer_norm_eps", o.layer_norm_eps},
          {"norm_first", o.norm_first}};
}

TransformerOptions transformer_options_from(const json& c) {
  TransformerOptions o;
  o.dim_feedforward = c.at("dim_feedforward").get<int64_t>();
  o.dropout = c.at("dropout").get<double>();
  o.activation = Activation(c.at("activation").get<std::string>());
  o.layer_norm_eps = c.at("layer_norm_eps").get<double>();
  o.norm_first = c.at("norm_first").get<bool>();
  return o;
}

void TransformerEncoderLayer::get_config(json& c) const {
  c = {{"d_model", self_attn.embed_dim()}, {"nhead", self_attn.num_heads()},
       {"options", transformer_options_config(options_, *this)}};
}
void TransformerDecoderLayer::get_config(json& c) const {
  c = {{"d_model", self_attn.embed_dim()}, {"nhead", self_attn.num_heads()},
       {"options", transformer_options_config(options_, *this)}};
}
void TransformerEncoder::get_config(json& c) const {
  const TransformerEncoderLayer& first = *layers_.front();
  c = {{"num_layers", layers_.size()}, {"d_model", first.self_attn.embed_dim()}, {"nhead", first.self_attn.num_heads()},
       {"options", transformer_options_config(first.options(), *this)}, {"final_norm", norm_ != nullptr}};
}
void TransformerDecoder::get_config(json& c) const {
  const TransformerDecoderLayer& first = *layers_.front();
  c = {{"num_layers", layers_.size()}, {"d_model", first.self_attn.embed_dim()}, {"nhead", first.self_attn.num_heads()},
       {"options", transformer_options_config(first.options(), *this)}, {"final_norm", norm_ != nullptr}};
}
void Transformer::get_config(json& c) const {
  json enc, dec;
  encoder.get_config(enc);
  decoder.get_config(dec);
  c = {{"d_model", enc["d_model"]}, {"nhead", enc["nhead"]}, {"num_encoder_layers", enc["num_layers"]},
       {"num_decoder_layers", dec["num_layers"]}, {"options", enc["options"]}};
}

template <class L>
std::shared_ptr<Layer> transformer_layer_from_config(const json& c, const std::string& name) {
  return std::make_shared<L>(c.at("d_model").get<int64_t>(), c.at("nhead").get<int64_t>(),
                             transformer_options_from(c.at("options")), name);
}
template <class L>
std::shared_ptr<Layer> transformer_stack_from_config(const json& c, const std::string& name) {
  return std::make_shared<L>(c.at("num_layers").get<int64_t>(), c.at("d_model").get<int64_t>(),
                             c.at("nhead").get<int64_t>(), transformer_options_from(c.at("options")),
                             c.at("final_norm").get<bool>(), name);
}

STRATA_LAYER_CLASS("transformerencoderlayer", transformer_layer_from_config<TransformerEncoderLayer>);
STRATA_LAYER_CLASS("transformerdecoderlayer", transformer_layer_from_config<TransformerDecoderLayer>);
STRATA_LAYER_CLASS("transformerencoder", transformer_stack_from_config<TransformerEncoder>);
STRATA_LAYER_CLASS("transformerdecoder", transformer_stack_from_config<TransformerDecoder>);
STRATA_LAYER_CLASS("transformer", [](const json& c, const std::string& name) {
  return std::make_shared<Transformer>(c.at("d_model").get<int64_t>(), c.at("nhead").get<int64_t>(),
                                       c.at("num_encoder_layers").get<int64_t>(),
                                       c.at("num_decoder_layers").get<int64_t>(),
                                       transformer_options_from(c.at("options")), name);
});

}  // namespace strata::nn
