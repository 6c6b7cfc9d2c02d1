#include "strata/nn/layers/attention.hpp"

#include "nn/scoped_assign.hpp"
#include "strata/nn/option_table.hpp"
#include "strata/ops/dropout.hpp"
#include "strata/ops/elementwise.hpp"

namespace strata::nn {

using nlohmann::json;

STRATA_DEFINE_OPTIONS(TransformerOptions, STRATA_TRANSFORMER_OPTIONS)

// TransformerOptions nest in the layers' configs as "options": {dim_feedforward, ...}.
template <>
struct OptionCodec<TransformerOptions> {
  static constexpr const char* type = "transformer options";
  static constexpr bool integral = false;
  static json write(const TransformerOptions& o) { return write_options(o); }
  static TransformerOptions read(const json& j) { return read_options<TransformerOptions>(j); }
};

STRATA_DEFINE_OPTIONS(TransformerLayerOptions, STRATA_TRANSFORMER_LAYER_OPTIONS)
STRATA_DEFINE_OPTIONS(TransformerStackOptions, STRATA_TRANSFORMER_STACK_OPTIONS)
STRATA_DEFINE_OPTIONS(TransformerModelOptions, STRATA_TRANSFORMER_MODEL_OPTIONS)

namespace {

// Options checked before the children are made from them, the nested "options" included.
template <class Options>
Options checked(Options options, const Layer& owner) {
  check_options(options, owner);
  check_options(option_table<TransformerOptions>(), &options.options, owner_text(owner) + ": \"options\"");
  return options;
}

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

TransformerEncoderLayer::TransformerEncoderLayer(Options options, std::string name)
    : EncoderCall("transformerencoderlayer", std::move(name)),
      options_(checked(std::move(options), *this)),
      self_attn(options_.d_model, options_.nhead, options_.options.dropout, true, this->name() + "/self_attn"),
      linear1(options_.options.dim_feedforward, options_.options.activation, this->name() + "/linear1"),
      linear2(options_.d_model, {}, this->name() + "/linear2"),
      norm1(position_norm(options_.options.layer_norm_eps, this->name() + "/norm1")),
      norm2(position_norm(options_.options.layer_norm_eps, this->name() + "/norm2")) {}

TransformerEncoderLayer::TransformerEncoderLayer(int64_t d_model, int64_t nhead, TransformerOptions options,
                                                 std::string name)
    : TransformerEncoderLayer(Options{.d_model = d_model, .nhead = nhead, .options = std::move(options)},
                              std::move(name)) {}

Tensor TransformerEncoderLayer::encode(const Tensor& src, const AttentionMask& mask) {
  const double p = options_.options.dropout;
  const bool on = training();
  Tensor x = residual(src, norm1, options_.options.norm_first,
                      [&](const Tensor& h) { return dropout(self_attn(h, h, h, mask), p, on); });
  return residual(x, norm2, options_.options.norm_first,
                  [&](const Tensor& h) { return feed_forward(h, linear1, linear2, p, on); });
}

TransformerDecoderLayer::TransformerDecoderLayer(Options options, std::string name)
    : DecoderCall("transformerdecoderlayer", std::move(name)),
      options_(checked(std::move(options), *this)),
      self_attn(options_.d_model, options_.nhead, options_.options.dropout, true, this->name() + "/self_attn"),
      cross_attn(options_.d_model, options_.nhead, options_.options.dropout, true, this->name() + "/cross_attn"),
      linear1(options_.options.dim_feedforward, options_.options.activation, this->name() + "/linear1"),
      linear2(options_.d_model, {}, this->name() + "/linear2"),
      norm1(position_norm(options_.options.layer_norm_eps, this->name() + "/norm1")),
      norm2(position_norm(options_.options.layer_norm_eps, this->name() + "/norm2")),
      norm3(position_norm(options_.options.layer_norm_eps, this->name() + "/norm3")) {}

TransformerDecoderLayer::TransformerDecoderLayer(int64_t d_model, int64_t nhead, TransformerOptions options,
                                                 std::string name)
    : TransformerDecoderLayer(Options{.d_model = d_model, .nhead = nhead, .options = std::move(options)},
                              std::move(name)) {}

Tensor TransformerDecoderLayer::decode(const Tensor& tgt, const Tensor& memory, const AttentionMask& tgt_mask,
                                       const AttentionMask& memory_mask) {
  const double p = options_.options.dropout;
  const bool on = training(), first = options_.options.norm_first;
  Tensor x = residual(tgt, norm1, first, [&](const Tensor& h) { return dropout(self_attn(h, h, h, tgt_mask), p, on); });
  x = residual(x, norm2, first,
               [&](const Tensor& h) { return dropout(cross_attn(h, memory, memory, memory_mask), p, on); });
  return residual(x, norm3, first, [&](const Tensor& h) { return feed_forward(h, linear1, linear2, p, on); });
}

TransformerEncoder::TransformerEncoder(Options options, std::string name)
    : EncoderCall("transformerencoder", std::move(name)),
      options_(checked(std::move(options), *this)),
      norm_(final_norm_of(options_.final_norm, options_.options.layer_norm_eps, this->name())) {
  for (int64_t i = 0; i < options_.num_layers; ++i)
    layers_.push_back(std::make_unique<TransformerEncoderLayer>(
        TransformerLayerOptions{.d_model = options_.d_model, .nhead = options_.nhead, .options = options_.options},
        this->name() + "/layer" + std::to_string(i)));
}

TransformerEncoder::TransformerEncoder(int64_t num_layers, int64_t d_model, int64_t nhead, TransformerOptions options,
                                       bool final_norm, std::string name)
    : TransformerEncoder(Options{.num_layers = num_layers,
                                 .d_model = d_model,
                                 .nhead = nhead,
                                 .options = std::move(options),
                                 .final_norm = final_norm},
                         std::move(name)) {}

Tensor TransformerEncoder::encode(const Tensor& src, const AttentionMask& mask) {
  Tensor x = src;
  for (auto& layer : layers_) x = (*layer)(x, mask);
  return norm_ ? (*norm_)(x) : x;
}

TransformerDecoder::TransformerDecoder(Options options, std::string name)
    : DecoderCall("transformerdecoder", std::move(name)),
      options_(checked(std::move(options), *this)),
      norm_(final_norm_of(options_.final_norm, options_.options.layer_norm_eps, this->name())) {
  for (int64_t i = 0; i < options_.num_layers; ++i)
    layers_.push_back(std::make_unique<TransformerDecoderLayer>(
        TransformerLayerOptions{.d_model = options_.d_model, .nhead = options_.nhead, .options = options_.options},
        this->name() + "/layer" + std::to_string(i)));
}

TransformerDecoder::TransformerDecoder(int64_t num_layers, int64_t d_model, int64_t nhead, TransformerOptions options,
                                       bool final_norm, std::string name)
    : TransformerDecoder(Options{.num_layers = num_layers,
                                 .d_model = d_model,
                                 .nhead = nhead,
                                 .options = std::move(options),
                                 .final_norm = final_norm},
                         std::move(name)) {}

Tensor TransformerDecoder::decode(const Tensor& tgt, const Tensor& memory, const AttentionMask& tgt_mask,
                                  const AttentionMask& memory_mask) {
  Tensor x = tgt;
  for (auto& layer : layers_) x = (*layer)(x, memory, tgt_mask, memory_mask);
  return norm_ ? (*norm_)(x) : x;
}

Transformer::Transformer(Options options, std::string name)
    : Layer("transformer", std::move(name)),
      options_(checked(std::move(options), *this)),
      encoder(TransformerStackOptions{.num_layers = options_.num_encoder_layers,
                                      .d_model = options_.d_model,
                                      .nhead = options_.nhead,
                                      .options = options_.options,
                                      .final_norm = true},
              this->name() + "/encoder"),
      decoder(TransformerStackOptions{.num_layers = options_.num_decoder_layers,
                                      .d_model = options_.d_model,
                                      .nhead = options_.nhead,
                                      .options = options_.options,
                                      .final_norm = true},
              this->name() + "/decoder") {}

Transformer::Transformer(int64_t d_model, int64_t nhead, int64_t num_encoder_layers, int64_t num_decoder_layers,
                         TransformerOptions options, std::string name)
    : Transformer(Options{.d_model = d_model,
                          .nhead = nhead,
                          .num_encoder_layers = num_encoder_layers,
                          .num_decoder_layers = num_decoder_layers,
                          .options = std::move(options)},
                  std::move(name)) {}

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

STRATA_LAYER("transformerencoderlayer", TransformerEncoderLayer);
STRATA_LAYER("transformerdecoderlayer", TransformerDecoderLayer);
STRATA_LAYER("transformerencoder", TransformerEncoder);
STRATA_LAYER("transformerdecoder", TransformerDecoder);
STRATA_LAYER("transformer", Transformer);

}  // namespace strata::nn
