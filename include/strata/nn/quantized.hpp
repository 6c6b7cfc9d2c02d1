// Quantised layers (TensorLayer's BinaryDense/Conv2d, TernaryDense/Conv2d, DorefaDense/Conv2d,
// QuanDense/Conv2d, Sign): the float weights (and for DoReFa / Quan the inputs) are quantised
// before the product; gradients reach the float weights by straight-through estimators.
#pragma once
#include <functional>

#include "strata/nn/activation.hpp"
#include "strata/nn/dense.hpp"
#include "strata/nn/layer.hpp"
#include "strata/ops/conv.hpp"

namespace strata::nn {

// ---- quantisers (functional forms). Each forward value is the quantised one; the gradient is
// the identity's where the text says "straight through".

// Forward q, gradient of the identity w.r.t. x: x + stop_gradient(q - x).
Tensor straight_through(const Tensor& x, const Tensor& q);
// sign(x) in {-1, 0, 1}, straight through (TensorLayer's quantize).
Tensor sign_ste(const Tensor& x);
// Ternary weights (Li & Liu, TWN): t = 0.7 * mean|x|; alpha = mean of |x| over |x| > t;
// alpha * (+1 where x > t, -1 where x < -t, else 0), straight through.
Tensor ternarize(const Tensor& x);
// DoReFa's k-bit rounding of x in [0, 1]: round(x * (2^k - 1)) / (2^k - 1), straight through.
Tensor dorefa_round(const Tensor& x, int bits);
// DoReFa weights: bits 32 = x; bits 1 = sign(x / E) * E with E = mean|x| (a constant);
// else 2 * dorefa_round(clip(x / 2 + 1/2, 0, 1)) - 1 (the clip differentiates normally).
Tensor dorefa_weight(const Tensor& x, int bits);
// DoReFa activations: bits 32 = x; else dorefa_round(min(|x|, 1)) (min and |.| differentiate).
Tensor dorefa_activation(const Tensor& x, int bits);
// TensorLayer's quantize_*_overflow: 2^k - 1 equal steps between min(x) and max(x),
// x rounded to the nearest, straight through; bits 32 = x.
Tensor quantize_min_max(const Tensor& x, int bits);

// A map of a tensor before the product; empty = identity.
using Quantizer = std::function<Tensor(const Tensor&)>;

// Sign as a layer (TensorLayer's Sign): sign_ste of its input.
class Sign : public Layer {
 public:
  STRATA_LAYER_MOVABLE(Sign)
  explicit Sign(std::string name = "") : Layer("sign", std::move(name)) {}

 protected:
  Tensor forward(const Tensor& x) override { return sign_ste(x); }
};

// y = act(input_q(x) · weight_q(W) + b); W [in, units], b [units], in inferred. The named
// classes below only pick the quantisers.
class QuantizedDense : public Dense {
 public:
  STRATA_LAYER_MOVABLE(QuantizedDense)
  // The named classes' arguments (the quantisers themselves are code: they are known by kind).
  void get_config(nlohmann::json& config) const override;
  QuantizedDense(std::string kind, int64_t units, Quantizer weight_q, Quantizer input_q, Activation act,
                 std::string name, bool use_bias, Initializer w_init, Initializer b_init);
  // The weights the forward pass multiplies by.
  Tensor quantized_weight() const;

 protected:
  Tensor forward(const Tensor& x) override;
  // The quantisers' bit widths, for get_config; 0 where they take none (Binary, Ternary).
  int bit_w_ = 0, bit_a_ = 0;

 private:
  Quantizer weight_q_, input_q_;
};

// y = act(conv2d(input_q(x), weight_q(W)) + b) on NHWC; W [kh, kw, in, n_filter].
class QuantizedConv2d : public Layer {
 public:
  STRATA_LAYER_MOVABLE(QuantizedConv2d)
  // The named classes' arguments (the quantisers themselves are code: they are known by kind).
  void get_config(nlohmann::json& config) const override;
  QuantizedConv2d(std::string kind, int64_t n_filter, SpatialSizes filter_size, Quantizer weight_q,
                  Quantizer input_q, Activation act, ConvOptions options, std::string name, bool use_bias,
                  Initializer w_init, Initializer b_init);
  Tensor W, b;
  Tensor quantized_weight() const;

 protected:
  void build(const Shape& input_shape) override;
  Tensor forward(const Tensor& x) override;
  int bit_w_ = 0, bit_a_ = 0;  // as QuantizedDense's

 private:
  int64_t n_filter_, in_channels_ = -1;
  SpatialSizes filter_size_;
  Quantizer weight_q_, input_q_;
  Activation act_;
  ConvOptions options_;
  bool use_bias_;
  Initializer w_init_, b_init_;
};

// SAME padding, stride 1 (TensorLayer's default for its quantised convolutions).
inline ConvOptions quantized_conv_same() { return ConvOptions{.padding = Padding::same()}; }

// Weights sign_ste(W); inputs as they come.
struct BinaryDense : QuantizedDense {
  STRATA_LAYER_MOVABLE(BinaryDense)
  explicit BinaryDense(int64_t units, Activation act = {}, std::string name = "", bool use_bias = true,
                       Initializer w_init = truncated_normal(0.0, 0.05), Initializer b_init = zeros_init());
};
struct BinaryConv2d : QuantizedConv2d {
  STRATA_LAYER_MOVABLE(BinaryConv2d)
  explicit BinaryConv2d(int64_t n_filter, SpatialSizes filter_size = {3, 3}, Activation act = {},
                        ConvOptions options = quantized_conv_same(), std::string name = "", bool use_bias = true,
                        Initializer w_init = truncated_normal(0.0, 0.02), Initializer b_init = zeros_init());
};
// Weights ternarize(W).
struct TernaryDense : QuantizedDense {
  STRATA_LAYER_MOVABLE(TernaryDense)
  explicit TernaryDense(int64_t units, Activation act = {}, std::string name = "", bool use_bias = true,
                        Initializer w_init = truncated_normal(0.0, 0.05), Initializer b_init = zeros_init());
};
struct TernaryConv2d : QuantizedConv2d {
  STRATA_LAYER_MOVABLE(TernaryConv2d)
  explicit TernaryConv2d(int64_t n_filter, SpatialSizes filter_size = {3, 3}, Activation act = {},
                         ConvOptions options = quantized_conv_same(), std::string name = "", bool use_bias = true,
                         Initializer w_init = truncated_normal(0.0, 0.02), Initializer b_init = zeros_init());
};
// Weights dorefa_weight(W, bit_w), inputs dorefa_activation(x, bit_a) (TensorLayer: 1 and 3).
struct DorefaDense : QuantizedDense {
  STRATA_LAYER_MOVABLE(DorefaDense)
  explicit DorefaDense(int64_t units, int bit_w = 1, int bit_a = 3, Activation act = {}, std::string name = "",
                       bool use_bias = true, Initializer w_init = truncated_normal(0.0, 0.05),
                       Initializer b_init = zeros_init());
};
struct DorefaConv2d : QuantizedConv2d {
  STRATA_LAYER_MOVABLE(DorefaConv2d)
  explicit DorefaConv2d(int64_t n_filter, SpatialSizes filter_size = {3, 3}, int bit_w = 1, int bit_a = 3,
                        Activation act = {}, ConvOptions options = quantized_conv_same(), std::string name = "",
                        bool use_bias = true, Initializer w_init = truncated_normal(0.0, 0.02),
                        Initializer b_init = zeros_init());
};
// Weights and inputs quantize_min_max(., bit_w / bit_a) (TensorLayer: 8 and 8).
struct QuanDense : QuantizedDense {
  STRATA_LAYER_MOVABLE(QuanDense)
  explicit QuanDense(int64_t units, int bit_w = 8, int bit_a = 8, Activation act = {}, std::string name = "",
                     bool use_bias = true, Initializer w_init = truncated_normal(0.0, 0.05),
                     Initializer b_init = zeros_init());
};
struct QuanConv2d : QuantizedConv2d {
  STRATA_LAYER_MOVABLE(QuanConv2d)
  explicit QuanConv2d(int64_t n_filter, SpatialSizes filter_size = {3, 3}, int bit_w = 8, int bit_a = 8,
                      Activation act = {}, ConvOptions options = quantized_conv_same(), std::string name = "",
                      bool use_bias = true, Initializer w_init = truncated_normal(0.0, 0.02),
                      Initializer b_init = zeros_init());
};

}  // namespace strata::nn
