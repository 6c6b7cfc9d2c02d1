#include "strata/nn/quantized.hpp"

#include <cmath>

#include "conv_config.hpp"
#include "strata/ops/elementwise.hpp"
#include "strata/ops/linalg.hpp"
#include "strata/ops/reduce.hpp"

namespace strata::nn {

namespace {

void expect_bits(int bits, const char* what) {
  if (bits < 1 || bits > 32)
    throw Error(std::string(what) + ": bits must be in 1..32, got " + std::to_string(bits));
}

Tensor quantize_or_keep(const Quantizer& q, const Tensor& x) { return q ? q(x) : x; }

}  // namespace

Tensor straight_through(const Tensor& x, const Tensor& q) { return x + (q - x).detach(); }

Tensor sign_ste(const Tensor& x) { return straight_through(x, sign(x.detach())); }

Tensor ternarize(const Tensor& x) {
  Tensor v = x.detach();
  Tensor threshold = mean(abs(v)) * 0.7;
  Tensor above = cast(abs(v) > threshold, v.dtype());
  // alpha = sum(|x| above t) / count(above t); no element above t only when x is all zeros.
  Tensor alpha = sum(abs(v) * above) / maximum(sum(above), ones({}, v.dtype()));
  Tensor t = cast(v > threshold, v.dtype()) - cast(v < -threshold, v.dtype());
  return straight_through(x, t * alpha);
}

Tensor dorefa_round(const Tensor& x, int bits) {
  expect_bits(bits, "dorefa_round");
  const double n = std::pow(2.0, bits) - 1;
  return straight_through(x, round(x.detach() * n) / n);
}

Tensor dorefa_weight(const Tensor& x, int bits) {
  expect_bits(bits, "dorefa_weight");
  if (bits == 32) return x;
  if (bits == 1) {
    Tensor e = mean(abs(x.detach()));
    // All-zero weights (E = 0) quantise to zeros; sign(x / 1) is then 0 as well.
    Tensor safe_e = where(e > 0.0, e, ones({}, e.dtype()));
    return sign_ste(x / safe_e) * e;
  }
  return dorefa_round(clamp(x * 0.5 + 0.5, 0.0, 1.0), bits) * 2.0 - 1.0;
}

Tensor dorefa_activation(const Tensor& x, int bits) {
  expect_bits(bits, "dorefa_activation");
  if (bits == 32) return x;
  return dorefa_round(minimum(abs(x), ones({}, x.dtype())), bits);
}

Tensor quantize_min_max(const Tensor& x, int bits) {
  expect_bits(bits, "quantize_min_max");
  if (bits == 32) return x;
  Tensor v = x.detach();
  Tensor low = amin(v), step = (amax(v) - low) / (std::pow(2.0, bits) - 1);
  // A constant x has step 0: it is its own quantisation.
  Tensor safe_step = where(step > 0.0, step, ones({}, v.dtype()));
  return straight_through(x, round((v - low) / safe_step) * safe_step + low);
}

QuantizedDense::QuantizedDense(std::string kind, int64_t units, Quantizer weight_q, Quantizer input_q,
                               Activation act, std::string name, bool use_bias, Initializer w_init,
                               Initializer b_init)
    : Dense(std::move(kind), units, std::move(act), std::move(name), -1, use_bias, std::move(w_init),
            std::move(b_init)),
      weight_q_(std::move(weight_q)),
      input_q_(std::move(input_q)) {}

Tensor QuantizedDense::quantized_weight() const { return quantize_or_keep(weight_q_, W); }

Tensor QuantizedDense::forward(const Tensor& x) { return apply(quantize_or_keep(input_q_, x), quantized_weight()); }

QuantizedConv2d::QuantizedConv2d(std::string kind, int64_t n_filter, SpatialSizes filter_size, Quantizer weight_q,
                                 Quantizer input_q, Activation act, ConvOptions options, std::string name,
                                 bool use_bias, Initializer w_init, Initializer b_init)
    : Layer(std::move(kind), std::move(name)), n_filter_(n_filter), filter_size_(std::move(filter_size)),
      weight_q_(std::move(weight_q)), input_q_(std::move(input_q)), act_(std::move(act)),
      options_(std::move(options)), use_bias_(use_bias), w_init_(std::move(w_init)), b_init_(std::move(b_init)) {
  expect(n_filter > 0, "n_filter must be positive, got " + std::to_string(n_filter));
  if (filter_size_.size() == 1) filter_size_.push_back(filter_size_[0]);
  expect(filter_size_.size() == 2, "filter_size must have 1 or 2 values");
}

void QuantizedConv2d::build(const Shape& s) {
  expect(s.size() == 4, "expects NHWC input [batch, height, width, channels], got " + s.str());
  in_channels_ = s[3];
  expect(in_channels_ % options_.groups == 0, "groups must divide the input channels");
  W = add_weight("W", {filter_size_[0], filter_size_[1], in_channels_ / options_.groups, n_filter_}, w_init_);
  if (use_bias_) b = add_weight("b", {n_filter_}, b_init_);
}

Tensor QuantizedConv2d::quantized_weight() const { return quantize_or_keep(weight_q_, W); }

Tensor QuantizedConv2d::forward(const Tensor& x) {
  expect(x.dim() == 4 && x.size(3) == in_channels_, "expected input of shape [N, H, W, " +
                                                        std::to_string(in_channels_) + "], got " + x.shape().str());
  return act_(conv2d(quantize_or_keep(input_q_, x), quantized_weight(), b, options_));
}

namespace {
Quantizer bits_quantizer(Tensor (*q)(const Tensor&, int), int bits, const char* what) {
  expect_bits(bits, what);
  return [q, bits](const Tensor& x) { return q(x, bits); };
}
}  // namespace

BinaryDense::BinaryDense(int64_t units, Activation act, std::string name, bool use_bias, Initializer w_init,
                         Initializer b_init)
    : QuantizedDense("binarydense", units, sign_ste, {}, std::move(act), std::move(name), use_bias,
                     std::move(w_init), std::move(b_init)) {}

BinaryConv2d::BinaryConv2d(int64_t n_filter, SpatialSizes filter_size, Activation act, ConvOptions options,
                           std::string name, bool use_bias, Initializer w_init, Initializer b_init)
    : QuantizedConv2d("binaryconv2d", n_filter, std::move(filter_size), sign_ste, {}, std::move(act),
                      std::move(options), std::move(name), use_bias, std::move(w_init), std::move(b_init)) {}

TernaryDense::TernaryDense(int64_t units, Activation act, std::string name, bool use_bias, Initializer w_init,
                           Initializer b_init)
    : QuantizedDense("ternarydense", units, ternarize, {}, std::move(act), std::move(name), use_bias,
                     std::move(w_init), std::move(b_init)) {}

TernaryConv2d::TernaryConv2d(int64_t n_filter, SpatialSizes filter_size, Activation act, ConvOptions options,
                             std::string name, bool use_bias, Initializer w_init, Initializer b_init)
    : QuantizedConv2d("ternaryconv2d", n_filter, std::move(filter_size), ternarize, {}, std::move(act),
                      std::move(options), std::move(name), use_bias, std::move(w_init), std::move(b_init)) {}

DorefaDense::DorefaDense(int64_t units, int bit_w, int bit_a, Activation act, std::string name, bool use_bias,
                         Initializer w_init, Initializer b_init)
    : QuantizedDense("dorefadense", units, bits_quantizer(dorefa_weight, bit_w, "DorefaDense bit_w"),
                     bits_quantizer(dorefa_activation, bit_a, "DorefaDense bit_a"), std::move(act),
                     std::move(name), use_bias, std::move(w_init), std::move(b_init)) {
  bit_w_ = bit_w;
  bit_a_ = bit_a;
}

DorefaConv2d::DorefaConv2d(int64_t n_filter, SpatialSizes filter_size, int bit_w, int bit_a, Activation act,
                           ConvOptions options, std::string name, bool use_bias, Initializer w_init,
                           Initializer b_init)
    : QuantizedConv2d("dorefaconv2d", n_filter, std::move(filter_size),
                      bits_quantizer(dorefa_weight, bit_w, "DorefaConv2d bit_w"),
                      bits_quantizer(dorefa_activation, bit_a, "DorefaConv2d bit_a"), std::move(act),
                      std::move(options), std::move(name), use_bias, std::move(w_init), std::move(b_init)) {
  bit_w_ = bit_w;
  bit_a_ = bit_a;
}

QuanDense::QuanDense(int64_t units, int bit_w, int bit_a, Activation act, std::string name, bool use_bias,
                     Initializer w_init, Initializer b_init)
    : QuantizedDense("quandense", units, bits_quantizer(quantize_min_max, bit_w, "QuanDense bit_w"),
                     bits_quantizer(quantize_min_max, bit_a, "QuanDense bit_a"), std::move(act), std::move(name),
                     use_bias, std::move(w_init), std::move(b_init)) {
  bit_w_ = bit_w;
  bit_a_ = bit_a;
}

QuanConv2d::QuanConv2d(int64_t n_filter, SpatialSizes filter_size, int bit_w, int bit_a, Activation act,
                       ConvOptions options, std::string name, bool use_bias, Initializer w_init, Initializer b_init)
    : QuantizedConv2d("quanconv2d", n_filter, std::move(filter_size),
                      bits_quantizer(quantize_min_max, bit_w, "QuanConv2d bit_w"),
                      bits_quantizer(quantize_min_max, bit_a, "QuanConv2d bit_a"), std::move(act),
                      std::move(options), std::move(name), use_bias, std::move(w_init), std::move(b_init)) {
  bit_w_ = bit_w;
  bit_a_ = bit_a;
}

// Dense's and the convolutions' configs less the input size, which these constructors do not
// take (they always infer it).
void QuantizedDense::get_config(nlohmann::json& c) const {
  Dense::get_config(c);
  c.erase("in_units");
  if (bit_w_ > 0) c.update({{"bit_w", bit_w_}, {"bit_a", bit_a_}});
}

void QuantizedConv2d::get_config(nlohmann::json& c) const {
  c = detail::conv_config(n_filter_, filter_size_, act_, options_, in_channels_, use_bias_, *this);
  c.erase("in_channels");
  if (bit_w_ > 0) c.update({{"bit_w", bit_w_}, {"bit_a", bit_a_}});
}

namespace {

template <class L, bool with_bits>
std::shared_ptr<Layer> quantized_dense_from_config(const nlohmann::json& c, const std::string& name) {
  const int64_t units = c.at("units").get<int64_t>();
  const Activation act(c.at("act").get<std::string>());
  const bool use_bias = c.at("use_bias").get<bool>();
  if constexpr (with_bits)
    return std::make_shared<L>(units, c.at("bit_w").get<int>(), c.at("bit_a").get<int>(), act, name, use_bias);
  else
    return std::make_shared<L>(units, act, name, use_bias);
}

template <class L, bool with_bits>
std::shared_ptr<Layer> quantized_conv_from_config(const nlohmann::json& c, const std::string& name) {
  const int64_t n_filter = c.at("n_filter").get<int64_t>();
  const SpatialSizes filter_size = dims_of(c.at("filter_size"));
  const Activation act(c.at("act").get<std::string>());
  const ConvOptions options = conv_options_from(c.at("options"));
  const bool use_bias = c.at("use_bias").get<bool>();
  if constexpr (with_bits)
    return std::make_shared<L>(n_filter, filter_size, c.at("bit_w").get<int>(), c.at("bit_a").get<int>(), act,
                               options, name, use_bias);
  else
    return std::make_shared<L>(n_filter, filter_size, act, options, name, use_bias);
}

}  // namespace

STRATA_LAYER_CLASS("sign", [](const nlohmann::json&, const std::string& name) { return std::make_shared<Sign>(name); });
STRATA_LAYER_CLASS("binarydense", quantized_dense_from_config<BinaryDense, false>);
STRATA_LAYER_CLASS("ternarydense", quantized_dense_from_config<TernaryDense, false>);
STRATA_LAYER_CLASS("dorefadense", quantized_dense_from_config<DorefaDense, true>);
STRATA_LAYER_CLASS("quandense", quantized_dense_from_config<QuanDense, true>);
STRATA_LAYER_CLASS("binaryconv2d", quantized_conv_from_config<BinaryConv2d, false>);
STRATA_LAYER_CLASS("ternaryconv2d", quantized_conv_from_config<TernaryConv2d, false>);
STRATA_LAYER_CLASS("dorefaconv2d", quantized_conv_from_config<DorefaConv2d, true>);
STRATA_LAYER_CLASS("quanconv2d", quantized_conv_from_config<QuanConv2d, true>);

}  // namespace strata::nn
