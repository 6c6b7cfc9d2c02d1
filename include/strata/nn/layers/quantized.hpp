// Quantized layers for quantization-aware training: binary, ternary, DoReFa and fixed-point dense
// and convolution layers, with batch norm folded in (TensorLayer's QuanDenseWithBN and
// QuanConv2dWithBN).
// One header per layer family (docs/architecture.md, "nn"); each section below keeps its own notes.
#pragma once
#include <functional>
#include <utility>

#include "strata/nn/layer.hpp"
#include "strata/nn/layers/activation.hpp"
#include "strata/nn/layers/dense.hpp"
#include "strata/nn/options.hpp"
#include "strata/ops/conv.hpp"

// Quantised layers (TensorLayer's BinaryDense/Conv2d, TernaryDense/Conv2d, DorefaDense/Conv2d,
// QuanDense/Conv2d, Sign): the float weights (and for DoReFa / Quan the inputs) are quantised
// before the product; gradients reach the float weights by straight-through estimators.
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

// Sign as a layer (TensorLayer's Sign): sign_ste of its input. It has no options (its config is {}).
#define STRATA_SIGN_OPTIONS(X)
STRATA_OPTIONS(SignOptions, STRATA_SIGN_OPTIONS);

class Sign : public Layer {
 public:
  using Options = SignOptions;
  STRATA_LAYER_MOVABLE(Sign)
  explicit Sign(Options options, std::string name = "") : Layer("sign", std::move(name)), options_(options) {}
  explicit Sign(std::string name = "") : Sign(Options{}, std::move(name)) {}
  const Options& options() const { return options_; }

 protected:
  Tensor forward(const Tensor& x) override { return sign_ste(x); }

 private:
  Options options_;
};

// SAME padding, stride 1 (TensorLayer's default for its quantised convolutions).
inline ConvOptions quantized_conv_same() { return ConvOptions{.padding = Padding::same()}; }

// The options of the named classes below. The quantisers themselves are code: the kind names
// them, the options hold their bit widths (DoReFa, Quan). The input size is always inferred.
#define STRATA_QUANTIZED_DENSE_OPTIONS(X)                                                          \
  X(int64_t, units, 0, at_least(1), "output features")                                             \
  X(Activation, act, {}, any(), "applied to the product plus b; empty: none")                      \
  X(bool, use_bias, true, any(), "adds the bias b")                                                \
  X(Initializer, w_init, truncated_normal(0.0, 0.05), not_saved(), "initializer of W [in, units]") \
  X(Initializer, b_init, zeros_init(), not_saved(), "initializer of b [units]")
// BinaryDense and TernaryDense.
STRATA_OPTIONS(QuantizedDenseOptions, STRATA_QUANTIZED_DENSE_OPTIONS);

#define STRATA_DOREFA_DENSE_OPTIONS(X)                                                             \
  X(int64_t, units, 0, at_least(1), "output features")                                             \
  X(int, bit_w, 1, between(1, 32), "bits of the weights (32: float)")                              \
  X(int, bit_a, 3, between(1, 32), "bits of the inputs (32: float)")                               \
  X(Activation, act, {}, any(), "applied to the product plus b; empty: none")                      \
  X(bool, use_bias, true, any(), "adds the bias b")                                                \
  X(Initializer, w_init, truncated_normal(0.0, 0.05), not_saved(), "initializer of W [in, units]") \
  X(Initializer, b_init, zeros_init(), not_saved(), "initializer of b [units]")
STRATA_OPTIONS(DorefaDenseOptions, STRATA_DOREFA_DENSE_OPTIONS);

#define STRATA_QUAN_DENSE_OPTIONS(X)                                                               \
  X(int64_t, units, 0, at_least(1), "output features")                                             \
  X(int, bit_w, 8, between(1, 32), "bits of the weights (32: float)")                              \
  X(int, bit_a, 8, between(1, 32), "bits of the inputs (32: float)")                               \
  X(Activation, act, {}, any(), "applied to the product plus b; empty: none")                      \
  X(bool, use_bias, true, any(), "adds the bias b")                                                \
  X(Initializer, w_init, truncated_normal(0.0, 0.05), not_saved(), "initializer of W [in, units]") \
  X(Initializer, b_init, zeros_init(), not_saved(), "initializer of b [units]")
STRATA_OPTIONS(QuanDenseOptions, STRATA_QUAN_DENSE_OPTIONS);

#define STRATA_QUANTIZED_CONV2D_OPTIONS(X)                                                                    \
  X(int64_t, n_filter, 0, at_least(1), "output channels")                                                     \
  X(SpatialSizes, filter_size, (SpatialSizes{3, 3}), at_least(1), "kernel [kh, kw]; one value: square")       \
  X(Activation, act, {}, any(), "applied to the convolution plus b; empty: none")                             \
  X(ConvOptions, options, quantized_conv_same(), any(), "stride, padding, dilation, groups")                  \
  X(bool, use_bias, true, any(), "adds the bias b")                                                           \
  X(Initializer, w_init, truncated_normal(0.0, 0.02), not_saved(), "initializer of W [kh, kw, in, n_filter]") \
  X(Initializer, b_init, zeros_init(), not_saved(), "initializer of b [n_filter]")
// BinaryConv2d and TernaryConv2d; QuantizedConv2d's own.
STRATA_OPTIONS(QuantizedConv2dOptions, STRATA_QUANTIZED_CONV2D_OPTIONS);

#define STRATA_DOREFA_CONV2D_OPTIONS(X)                                                                       \
  X(int64_t, n_filter, 0, at_least(1), "output channels")                                                     \
  X(SpatialSizes, filter_size, (SpatialSizes{3, 3}), at_least(1), "kernel [kh, kw]; one value: square")       \
  X(int, bit_w, 1, between(1, 32), "bits of the weights (32: float)")                                         \
  X(int, bit_a, 3, between(1, 32), "bits of the inputs (32: float)")                                          \
  X(Activation, act, {}, any(), "applied to the convolution plus b; empty: none")                             \
  X(ConvOptions, options, quantized_conv_same(), any(), "stride, padding, dilation, groups")                  \
  X(bool, use_bias, true, any(), "adds the bias b")                                                           \
  X(Initializer, w_init, truncated_normal(0.0, 0.02), not_saved(), "initializer of W [kh, kw, in, n_filter]") \
  X(Initializer, b_init, zeros_init(), not_saved(), "initializer of b [n_filter]")
STRATA_OPTIONS(DorefaConv2dOptions, STRATA_DOREFA_CONV2D_OPTIONS);

#define STRATA_QUAN_CONV2D_OPTIONS(X)                                                                         \
  X(int64_t, n_filter, 0, at_least(1), "output channels")                                                     \
  X(SpatialSizes, filter_size, (SpatialSizes{3, 3}), at_least(1), "kernel [kh, kw]; one value: square")       \
  X(int, bit_w, 8, between(1, 32), "bits of the weights (32: float)")                                         \
  X(int, bit_a, 8, between(1, 32), "bits of the inputs (32: float)")                                          \
  X(Activation, act, {}, any(), "applied to the convolution plus b; empty: none")                             \
  X(ConvOptions, options, quantized_conv_same(), any(), "stride, padding, dilation, groups")                  \
  X(bool, use_bias, true, any(), "adds the bias b")                                                           \
  X(Initializer, w_init, truncated_normal(0.0, 0.02), not_saved(), "initializer of W [kh, kw, in, n_filter]") \
  X(Initializer, b_init, zeros_init(), not_saved(), "initializer of b [n_filter]")
STRATA_OPTIONS(QuanConv2dOptions, STRATA_QUAN_CONV2D_OPTIONS);

// y = act(input_q(x) · weight_q(W) + b); W [in, units], b [units], in inferred. The named
// classes below only pick the quantisers.
class QuantizedDense : public Dense {
 public:
  STRATA_LAYER_MOVABLE(QuantizedDense)
  QuantizedDense(std::string kind, int64_t units, Quantizer weight_q, Quantizer input_q, Activation act,
                 std::string name, bool use_bias, Initializer w_init, Initializer b_init);
  // The weights the forward pass multiplies by.
  Tensor quantized_weight() const;

 protected:
  // Dense's options (in_units -1: always inferred) and the quantisers.
  QuantizedDense(std::string kind, DenseOptions dense, Quantizer weight_q, Quantizer input_q, std::string name);
  Tensor forward(const Tensor& x) override;

 private:
  Quantizer weight_q_, input_q_;
};

// y = act(conv2d(input_q(x), weight_q(W)) + b) on NHWC; W [kh, kw, in, n_filter].
class QuantizedConv2d : public Layer {
 public:
  STRATA_LAYER_MOVABLE(QuantizedConv2d)
  QuantizedConv2d(std::string kind, int64_t n_filter, SpatialSizes filter_size, Quantizer weight_q, Quantizer input_q,
                  Activation act, ConvOptions options, std::string name, bool use_bias, Initializer w_init,
                  Initializer b_init);
  // Its kind, its convolution's options (filter_size becomes [kh, kw]) and the quantisers.
  QuantizedConv2d(std::string kind, QuantizedConv2dOptions conv, Quantizer weight_q, Quantizer input_q,
                  std::string name);
  Tensor W, b;
  Tensor quantized_weight() const;
  // The convolution's options, filter_size as [kh, kw] (BinaryConv2d's and TernaryConv2d's options).
  const QuantizedConv2dOptions& conv_options() const { return conv_; }

 protected:
  void build(const Shape& input_shape) override;
  Tensor forward(const Tensor& x) override;

 private:
  QuantizedConv2dOptions conv_;
  int64_t in_channels_ = -1;
  Quantizer weight_q_, input_q_;
};

// Weights sign_ste(W); inputs as they come.
struct BinaryDense : QuantizedDense {
  using Options = QuantizedDenseOptions;
  STRATA_LAYER_MOVABLE(BinaryDense)
  explicit BinaryDense(Options options, std::string name = "");
  explicit BinaryDense(int64_t units, Activation act = {}, std::string name = "", bool use_bias = true,
                       Initializer w_init = truncated_normal(0.0, 0.05), Initializer b_init = zeros_init());
  const Options& options() const { return options_; }

 private:
  Options options_;
};
struct BinaryConv2d : QuantizedConv2d {
  using Options = QuantizedConv2dOptions;
  STRATA_LAYER_MOVABLE(BinaryConv2d)
  explicit BinaryConv2d(Options options, std::string name = "");
  explicit BinaryConv2d(int64_t n_filter, SpatialSizes filter_size = {3, 3}, Activation act = {},
                        ConvOptions options = quantized_conv_same(), std::string name = "", bool use_bias = true,
                        Initializer w_init = truncated_normal(0.0, 0.02), Initializer b_init = zeros_init());
  const Options& options() const { return conv_options(); }
};
// Weights ternarize(W).
struct TernaryDense : QuantizedDense {
  using Options = QuantizedDenseOptions;
  STRATA_LAYER_MOVABLE(TernaryDense)
  explicit TernaryDense(Options options, std::string name = "");
  explicit TernaryDense(int64_t units, Activation act = {}, std::string name = "", bool use_bias = true,
                        Initializer w_init = truncated_normal(0.0, 0.05), Initializer b_init = zeros_init());
  const Options& options() const { return options_; }

 private:
  Options options_;
};
struct TernaryConv2d : QuantizedConv2d {
  using Options = QuantizedConv2dOptions;
  STRATA_LAYER_MOVABLE(TernaryConv2d)
  explicit TernaryConv2d(Options options, std::string name = "");
  explicit TernaryConv2d(int64_t n_filter, SpatialSizes filter_size = {3, 3}, Activation act = {},
                         ConvOptions options = quantized_conv_same(), std::string name = "", bool use_bias = true,
                         Initializer w_init = truncated_normal(0.0, 0.02), Initializer b_init = zeros_init());
  const Options& options() const { return conv_options(); }
};
// Weights dorefa_weight(W, bit_w), inputs dorefa_activation(x, bit_a) (TensorLayer: 1 and 3).
struct DorefaDense : QuantizedDense {
  using Options = DorefaDenseOptions;
  STRATA_LAYER_MOVABLE(DorefaDense)
  explicit DorefaDense(Options options, std::string name = "");
  explicit DorefaDense(int64_t units, int bit_w = 1, int bit_a = 3, Activation act = {}, std::string name = "",
                       bool use_bias = true, Initializer w_init = truncated_normal(0.0, 0.05),
                       Initializer b_init = zeros_init());
  const Options& options() const { return options_; }

 private:
  Options options_;
};
struct DorefaConv2d : QuantizedConv2d {
  using Options = DorefaConv2dOptions;
  STRATA_LAYER_MOVABLE(DorefaConv2d)
  explicit DorefaConv2d(Options options, std::string name = "");
  explicit DorefaConv2d(int64_t n_filter, SpatialSizes filter_size = {3, 3}, int bit_w = 1, int bit_a = 3,
                        Activation act = {}, ConvOptions options = quantized_conv_same(), std::string name = "",
                        bool use_bias = true, Initializer w_init = truncated_normal(0.0, 0.02),
                        Initializer b_init = zeros_init());
  const Options& options() const { return options_; }

 private:
  Options options_;
};
// Weights and inputs quantize_min_max(., bit_w / bit_a) (TensorLayer: 8 and 8).
struct QuanDense : QuantizedDense {
  using Options = QuanDenseOptions;
  STRATA_LAYER_MOVABLE(QuanDense)
  explicit QuanDense(Options options, std::string name = "");
  explicit QuanDense(int64_t units, int bit_w = 8, int bit_a = 8, Activation act = {}, std::string name = "",
                     bool use_bias = true, Initializer w_init = truncated_normal(0.0, 0.05),
                     Initializer b_init = zeros_init());
  const Options& options() const { return options_; }

 private:
  Options options_;
};
struct QuanConv2d : QuantizedConv2d {
  using Options = QuanConv2dOptions;
  STRATA_LAYER_MOVABLE(QuanConv2d)
  explicit QuanConv2d(Options options, std::string name = "");
  explicit QuanConv2d(int64_t n_filter, SpatialSizes filter_size = {3, 3}, int bit_w = 8, int bit_a = 8,
                      Activation act = {}, ConvOptions options = quantized_conv_same(), std::string name = "",
                      bool use_bias = true, Initializer w_init = truncated_normal(0.0, 0.02),
                      Initializer b_init = zeros_init());
  const Options& options() const { return options_; }

 private:
  Options options_;
};

}  // namespace strata::nn

// QuanDenseWithBN and QuanConv2dWithBN (TensorLayer's): a Quan layer with batch norm folded into
// its weights, as for integer inference. With mean m and variance v per output unit (of the
// float product x · W over every axis but the last: the batch's in training, the moving ones
// in eval), the layer computes
//   act(quantize_min_max(x, bit_a) · quantize_min_max(W * gamma / sqrt(v + eps), bit_w)
//       + beta - gamma * m / sqrt(v + eps))
// and in training updates moving = decay * moving + (1 - decay) * batch (biased variance).
namespace strata::nn {

#define STRATA_QUAN_DENSE_WITH_BN_OPTIONS(X)                                            \
  X(int64_t, units, 0, at_least(1), "output features")                                  \
  X(int, bit_w, 8, between(1, 32), "bits of the folded weights (32: float)")            \
  X(int, bit_a, 8, between(1, 32), "bits of the inputs (32: float)")                    \
  X(Activation, act, {}, any(), "applied to the folded product; empty: none")           \
  X(double, decay, 0.9, between(0, 1), "moving = decay * moving + (1 - decay) * batch") \
  X(double, epsilon, 1e-5, any(), "added to the variance")                              \
  X(Initializer, w_init, truncated_normal(0.0, 0.05), not_saved(), "initializer of W [in, units]")
STRATA_OPTIONS(QuanDenseWithBNOptions, STRATA_QUAN_DENSE_WITH_BN_OPTIONS);

#define STRATA_QUAN_CONV2D_WITH_BN_OPTIONS(X)                                                                        \
  X(int64_t, n_filter, 0, at_least(1), "output channels")                                                            \
  X(SpatialSizes, filter_size, (SpatialSizes{3, 3}), at_least(1), "kernel [kh, kw]; one value: square")              \
  X(int, bit_w, 8, between(1, 32), "bits of the folded weights (32: float)")                                         \
  X(int, bit_a, 8, between(1, 32), "bits of the inputs (32: float)")                                                 \
  X(Activation, act, {}, any(), "applied to the folded convolution; empty: none")                                    \
  X(ConvOptions, options, (ConvOptions{.padding = Padding::same()}), any(), "stride, padding, dilation (groups: 1)") \
  X(double, decay, 0.9, between(0, 1), "moving = decay * moving + (1 - decay) * batch")                              \
  X(double, epsilon, 1e-5, any(), "added to the variance")                                                           \
  X(Initializer, w_init, truncated_normal(0.0, 0.02), not_saved(), "initializer of W [kh, kw, in, n_filter]")
STRATA_OPTIONS(QuanConv2dWithBNOptions, STRATA_QUAN_CONV2D_WITH_BN_OPTIONS);

// The shared part; the classes below pick the product (linear or conv2d) and the W shape.
class QuanWithBN : public Layer {
 public:
  STRATA_LAYER_MOVABLE(QuanWithBN)
  using Product = std::function<Tensor(const Tensor& x, const Tensor& w)>;
  // weight_shape(input shape) gives W's shape; `rank` is the input rank it expects (-1: >= 1).
  using WeightShape = std::function<Shape(const Shape& input_shape)>;
  QuanWithBN(std::string kind, int rank, WeightShape weight_shape, Product product, int bit_w, int bit_a, double decay,
             double epsilon, Activation act, std::string name, Initializer w_init);
  Tensor W, gamma, beta, moving_mean, moving_var;
  // W with the statistics of this mode folded in and quantised, and the folded bias, for x.
  std::pair<Tensor, Tensor> folded(const Tensor& x);

 protected:
  // The arguments as given, unchecked: the classes below check their options.
  struct Unchecked {};
  QuanWithBN(Unchecked, std::string kind, int rank, WeightShape weight_shape, Product product, int bit_w, int bit_a,
             double decay, double epsilon, Activation act, std::string name, Initializer w_init);
  void build(const Shape& input_shape) override;
  Tensor forward(const Tensor& x) override;

 private:
  int rank_;
  WeightShape weight_shape_;
  Product product_;
  int bit_w_, bit_a_;
  double decay_, epsilon_;
  Activation act_;
  Initializer w_init_;
  Shape w_shape_;
};

class QuanDenseWithBN : public QuanWithBN {
 public:
  using Options = QuanDenseWithBNOptions;
  STRATA_LAYER_MOVABLE(QuanDenseWithBN)
  explicit QuanDenseWithBN(Options options, std::string name = "");
  explicit QuanDenseWithBN(int64_t units, int bit_w = 8, int bit_a = 8, Activation act = {}, double decay = 0.9,
                           double epsilon = 1e-5, std::string name = "",
                           Initializer w_init = truncated_normal(0.0, 0.05));
  const Options& options() const { return options_; }

 private:
  Options options_;
};

class QuanConv2dWithBN : public QuanWithBN {
 public:
  using Options = QuanConv2dWithBNOptions;
  STRATA_LAYER_MOVABLE(QuanConv2dWithBN)
  explicit QuanConv2dWithBN(Options options, std::string name = "");
  explicit QuanConv2dWithBN(int64_t n_filter, SpatialSizes filter_size = {3, 3}, int bit_w = 8, int bit_a = 8,
                            Activation act = {}, ConvOptions options = ConvOptions{.padding = Padding::same()},
                            double decay = 0.9, double epsilon = 1e-5, std::string name = "",
                            Initializer w_init = truncated_normal(0.0, 0.02));
  const Options& options() const { return options_; }

 private:
  Options options_;
};

}  // namespace strata::nn
