// QuanDenseWithBN and QuanConv2dWithBN (TensorLayer's): a Quan layer with batch norm folded into
// its weights, as for integer inference. With mean m and variance v per output unit (of the
// float product x · W over every axis but the last: the batch's in training, the moving ones
// in eval), the layer computes
//   act(quantize_min_max(x, bit_a) · quantize_min_max(W * gamma / sqrt(v + eps), bit_w)
//       + beta - gamma * m / sqrt(v + eps))
// and in training updates moving = decay * moving + (1 - decay) * batch (biased variance).
#pragma once
#include <functional>
#include <utility>

#include "strata/nn/activation.hpp"
#include "strata/nn/layer.hpp"
#include "strata/nn/options.hpp"
#include "strata/ops/conv.hpp"

namespace strata::nn {

#define STRATA_QUAN_DENSE_WITH_BN_OPTIONS(X)                                                     \
  X(int64_t, units, 0, at_least(1), "output features")                                            \
  X(int, bit_w, 8, between(1, 32), "bits of the folded weights (32: float)")                      \
  X(int, bit_a, 8, between(1, 32), "bits of the inputs (32: float)")                              \
  X(Activation, act, {}, any(), "applied to the folded product; empty: none")                     \
  X(double, decay, 0.9, between(0, 1), "moving = decay * moving + (1 - decay) * batch")           \
  X(double, epsilon, 1e-5, any(), "added to the variance")                                         \
  X(Initializer, w_init, truncated_normal(0.0, 0.05), not_saved(), "initializer of W [in, units]")
STRATA_OPTIONS(QuanDenseWithBNOptions, STRATA_QUAN_DENSE_WITH_BN_OPTIONS);

#define STRATA_QUAN_CONV2D_WITH_BN_OPTIONS(X)                                                    \
  X(int64_t, n_filter, 0, at_least(1), "output channels")                                         \
  X(SpatialSizes, filter_size, (SpatialSizes{3, 3}), at_least(1), "kernel [kh, kw]; one value: square") \
  X(int, bit_w, 8, between(1, 32), "bits of the folded weights (32: float)")                      \
  X(int, bit_a, 8, between(1, 32), "bits of the inputs (32: float)")                              \
  X(Activation, act, {}, any(), "applied to the folded convolution; empty: none")                 \
  X(ConvOptions, options, (ConvOptions{.padding = Padding::same()}), any(), "stride, padding, dilation (groups: 1)") \
  X(double, decay, 0.9, between(0, 1), "moving = decay * moving + (1 - decay) * batch")           \
  X(double, epsilon, 1e-5, any(), "added to the variance")                                         \
  X(Initializer, w_init, truncated_normal(0.0, 0.02), not_saved(), "initializer of W [kh, kw, in, n_filter]")
STRATA_OPTIONS(QuanConv2dWithBNOptions, STRATA_QUAN_CONV2D_WITH_BN_OPTIONS);

// The shared part; the classes below pick the product (linear or conv2d) and the W shape.
class QuanWithBN : public Layer {
 public:
  STRATA_LAYER_MOVABLE(QuanWithBN)
  using Product = std::function<Tensor(const Tensor& x, const Tensor& w)>;
  // weight_shape(input shape) gives W's shape; `rank` is the input rank it expects (-1: >= 1).
  using WeightShape = std::function<Shape(const Shape& input_shape)>;
  QuanWithBN(std::string kind, int rank, WeightShape weight_shape, Product product, int bit_w, int bit_a,
             double decay, double epsilon, Activation act, std::string name, Initializer w_init);
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
