#include "strata/nn/layers/quantized.hpp"

#include <cmath>

#include "strata/nn/option_table.hpp"
#include "strata/ops/elementwise.hpp"
#include "strata/ops/linalg.hpp"
#include "strata/ops/reduce.hpp"

namespace strata::nn {

namespace {

void expect_bits(int bits, const char* what) {
  if (bits < 1 || bits > 32) throw Error(std::string(what) + ": bits must be in 1..32, got " + std::to_string(bits));
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

QuantizedDense::QuantizedDense(std::string kind, int64_t units, Quantizer weight_q, Quantizer input_q, Activation act,
                               std::string name, bool use_bias, Initializer w_init, Initializer b_init)
    : QuantizedDense(std::move(kind),
                     DenseOptions{.units = units,
                                  .act = std::move(act),
                                  .in_units = -1,
                                  .use_bias = use_bias,
                                  .w_init = std::move(w_init),
                                  .b_init = std::move(b_init)},
                     std::move(weight_q), std::move(input_q), std::move(name)) {}

QuantizedDense::QuantizedDense(std::string kind, DenseOptions dense, Quantizer weight_q, Quantizer input_q,
                               std::string name)
    : Dense(std::move(kind), std::move(dense), std::move(name)),
      weight_q_(std::move(weight_q)),
      input_q_(std::move(input_q)) {}

Tensor QuantizedDense::quantized_weight() const { return quantize_or_keep(weight_q_, W); }

Tensor QuantizedDense::forward(const Tensor& x) { return apply(quantize_or_keep(input_q_, x), quantized_weight()); }

QuantizedConv2d::QuantizedConv2d(std::string kind, int64_t n_filter, SpatialSizes filter_size, Quantizer weight_q,
                                 Quantizer input_q, Activation act, ConvOptions options, std::string name,
                                 bool use_bias, Initializer w_init, Initializer b_init)
    : QuantizedConv2d(std::move(kind),
                      QuantizedConv2dOptions{.n_filter = n_filter,
                                             .filter_size = std::move(filter_size),
                                             .act = std::move(act),
                                             .options = std::move(options),
                                             .use_bias = use_bias,
                                             .w_init = std::move(w_init),
                                             .b_init = std::move(b_init)},
                      std::move(weight_q), std::move(input_q), std::move(name)) {}

QuantizedConv2d::QuantizedConv2d(std::string kind, QuantizedConv2dOptions conv, Quantizer weight_q, Quantizer input_q,
                                 std::string name)
    : Layer(std::move(kind), std::move(name)),
      conv_(std::move(conv)),
      weight_q_(std::move(weight_q)),
      input_q_(std::move(input_q)) {
  check_options(conv_, *this);
  if (conv_.filter_size.size() == 1) conv_.filter_size.push_back(conv_.filter_size[0]);
  expect(conv_.filter_size.size() == 2, "filter_size must have 1 or 2 values");
}

void QuantizedConv2d::build(const Shape& s) {
  expect(s.size() == 4, "expects NHWC input [batch, height, width, channels], got " + s.str());
  in_channels_ = s[3];
  expect(in_channels_ % conv_.options.groups == 0, "groups must divide the input channels");
  W = add_weight("W", {conv_.filter_size[0], conv_.filter_size[1], in_channels_ / conv_.options.groups, conv_.n_filter},
                 conv_.w_init);
  if (conv_.use_bias) b = add_weight("b", {conv_.n_filter}, conv_.b_init);
}

Tensor QuantizedConv2d::quantized_weight() const { return quantize_or_keep(weight_q_, W); }

Tensor QuantizedConv2d::forward(const Tensor& x) {
  expect(x.dim() == 4 && x.size(3) == in_channels_,
         "expected input of shape [N, H, W, " + std::to_string(in_channels_) + "], got " + x.shape().str());
  return conv_.act(conv2d(quantize_or_keep(input_q_, x), quantized_weight(), b, conv_.options));
}

namespace {

// A quantiser with its bit width; the width is checked with the layer's options (the functions
// check it again).
Quantizer bits_quantizer(Tensor (*q)(const Tensor&, int), int bits) {
  return [q, bits](const Tensor& x) { return q(x, bits); };
}

// The Dense part of a quantised dense layer's options (in_units always inferred).
template <class O>
DenseOptions dense_part(const O& o) {
  return DenseOptions{
      .units = o.units, .act = o.act, .in_units = -1, .use_bias = o.use_bias, .w_init = o.w_init, .b_init = o.b_init};
}

// The convolution part of a quantised convolution's options.
template <class O>
QuantizedConv2dOptions conv_part(const O& o) {
  return QuantizedConv2dOptions{.n_filter = o.n_filter,
                                .filter_size = o.filter_size,
                                .act = o.act,
                                .options = o.options,
                                .use_bias = o.use_bias,
                                .w_init = o.w_init,
                                .b_init = o.b_init};
}

}  // namespace

BinaryDense::BinaryDense(Options options, std::string name)
    : QuantizedDense("binarydense", dense_part(options), sign_ste, {}, std::move(name)), options_(std::move(options)) {
  check_options(options_, *this);
}

BinaryDense::BinaryDense(int64_t units, Activation act, std::string name, bool use_bias, Initializer w_init,
                         Initializer b_init)
    : BinaryDense(Options{.units = units,
                          .act = std::move(act),
                          .use_bias = use_bias,
                          .w_init = std::move(w_init),
                          .b_init = std::move(b_init)},
                  std::move(name)) {}

BinaryConv2d::BinaryConv2d(Options options, std::string name)
    : QuantizedConv2d("binaryconv2d", std::move(options), sign_ste, {}, std::move(name)) {}

BinaryConv2d::BinaryConv2d(int64_t n_filter, SpatialSizes filter_size, Activation act, ConvOptions options,
                           std::string name, bool use_bias, Initializer w_init, Initializer b_init)
    : BinaryConv2d(Options{.n_filter = n_filter,
                           .filter_size = std::move(filter_size),
                           .act = std::move(act),
                           .options = std::move(options),
                           .use_bias = use_bias,
                           .w_init = std::move(w_init),
                           .b_init = std::move(b_init)},
                   std::move(name)) {}

TernaryDense::TernaryDense(Options options, std::string name)
    : QuantizedDense("ternarydense", dense_part(options), ternarize, {}, std::move(name)),
      options_(std::move(options)) {
  check_options(options_, *this);
}

TernaryDense::TernaryDense(int64_t units, Activation act, std::string name, bool use_bias, Initializer w_init,
                           Initializer b_init)
    : TernaryDense(Options{.units = units,
                           .act = std::move(act),
                           .use_bias = use_bias,
                           .w_init = std::move(w_init),
                           .b_init = std::move(b_init)},
                   std::move(name)) {}

TernaryConv2d::TernaryConv2d(Options options, std::string name)
    : QuantizedConv2d("ternaryconv2d", std::move(options), ternarize, {}, std::move(name)) {}

TernaryConv2d::TernaryConv2d(int64_t n_filter, SpatialSizes filter_size, Activation act, ConvOptions options,
                             std::string name, bool use_bias, Initializer w_init, Initializer b_init)
    : TernaryConv2d(Options{.n_filter = n_filter,
                            .filter_size = std::move(filter_size),
                            .act = std::move(act),
                            .options = std::move(options),
                            .use_bias = use_bias,
                            .w_init = std::move(w_init),
                            .b_init = std::move(b_init)},
                    std::move(name)) {}

DorefaDense::DorefaDense(Options options, std::string name)
    : QuantizedDense("dorefadense", dense_part(options), bits_quantizer(dorefa_weight, options.bit_w),
                     bits_quantizer(dorefa_activation, options.bit_a), std::move(name)),
      options_(std::move(options)) {
  check_options(options_, *this);
}

DorefaDense::DorefaDense(int64_t units, int bit_w, int bit_a, Activation act, std::string name, bool use_bias,
                         Initializer w_init, Initializer b_init)
    : DorefaDense(Options{.units = units,
                          .bit_w = bit_w,
                          .bit_a = bit_a,
                          .act = std::move(act),
                          .use_bias = use_bias,
                          .w_init = std::move(w_init),
                          .b_init = std::move(b_init)},
                  std::move(name)) {}

DorefaConv2d::DorefaConv2d(Options options, std::string name)
    : QuantizedConv2d("dorefaconv2d", conv_part(options), bits_quantizer(dorefa_weight, options.bit_w),
                      bits_quantizer(dorefa_activation, options.bit_a), std::move(name)),
      options_(std::move(options)) {
  check_options(options_, *this);
  options_.filter_size = conv_options().filter_size;  // as [kh, kw]
}

DorefaConv2d::DorefaConv2d(int64_t n_filter, SpatialSizes filter_size, int bit_w, int bit_a, Activation act,
                           ConvOptions options, std::string name, bool use_bias, Initializer w_init, Initializer b_init)
    : DorefaConv2d(Options{.n_filter = n_filter,
                           .filter_size = std::move(filter_size),
                           .bit_w = bit_w,
                           .bit_a = bit_a,
                           .act = std::move(act),
                           .options = std::move(options),
                           .use_bias = use_bias,
                           .w_init = std::move(w_init),
                           .b_init = std::move(b_init)},
                   std::move(name)) {}

QuanDense::QuanDense(Options options, std::string name)
    : QuantizedDense("quandense", dense_part(options), bits_quantizer(quantize_min_max, options.bit_w),
                     bits_quantizer(quantize_min_max, options.bit_a), std::move(name)),
      options_(std::move(options)) {
  check_options(options_, *this);
}

QuanDense::QuanDense(int64_t units, int bit_w, int bit_a, Activation act, std::string name, bool use_bias,
                     Initializer w_init, Initializer b_init)
    : QuanDense(Options{.units = units,
                        .bit_w = bit_w,
                        .bit_a = bit_a,
                        .act = std::move(act),
                        .use_bias = use_bias,
                        .w_init = std::move(w_init),
                        .b_init = std::move(b_init)},
                std::move(name)) {}

QuanConv2d::QuanConv2d(Options options, std::string name)
    : QuantizedConv2d("quanconv2d", conv_part(options), bits_quantizer(quantize_min_max, options.bit_w),
                      bits_quantizer(quantize_min_max, options.bit_a), std::move(name)),
      options_(std::move(options)) {
  check_options(options_, *this);
  options_.filter_size = conv_options().filter_size;  // as [kh, kw]
}

QuanConv2d::QuanConv2d(int64_t n_filter, SpatialSizes filter_size, int bit_w, int bit_a, Activation act,
                       ConvOptions options, std::string name, bool use_bias, Initializer w_init, Initializer b_init)
    : QuanConv2d(Options{.n_filter = n_filter,
                         .filter_size = std::move(filter_size),
                         .bit_w = bit_w,
                         .bit_a = bit_a,
                         .act = std::move(act),
                         .options = std::move(options),
                         .use_bias = use_bias,
                         .w_init = std::move(w_init),
                         .b_init = std::move(b_init)},
                 std::move(name)) {}

STRATA_DEFINE_OPTIONS(SignOptions, STRATA_SIGN_OPTIONS)
STRATA_DEFINE_OPTIONS(QuantizedDenseOptions, STRATA_QUANTIZED_DENSE_OPTIONS)
STRATA_DEFINE_OPTIONS(DorefaDenseOptions, STRATA_DOREFA_DENSE_OPTIONS)
STRATA_DEFINE_OPTIONS(QuanDenseOptions, STRATA_QUAN_DENSE_OPTIONS)
STRATA_DEFINE_OPTIONS(QuantizedConv2dOptions, STRATA_QUANTIZED_CONV2D_OPTIONS)
STRATA_DEFINE_OPTIONS(DorefaConv2dOptions, STRATA_DOREFA_CONV2D_OPTIONS)
STRATA_DEFINE_OPTIONS(QuanConv2dOptions, STRATA_QUAN_CONV2D_OPTIONS)

STRATA_LAYER("sign", Sign);
STRATA_LAYER("binarydense", BinaryDense);
STRATA_LAYER("ternarydense", TernaryDense);
STRATA_LAYER("dorefadense", DorefaDense);
STRATA_LAYER("quandense", QuanDense);
STRATA_LAYER("binaryconv2d", BinaryConv2d);
STRATA_LAYER("ternaryconv2d", TernaryConv2d);
STRATA_LAYER("dorefaconv2d", DorefaConv2d);
STRATA_LAYER("quanconv2d", QuanConv2d);

}  // namespace strata::nn
