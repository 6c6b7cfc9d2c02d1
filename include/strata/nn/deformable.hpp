// Deformable convolution (Dai et al. 2017; TensorLayer's DeformableConv2d): each kernel tap of
// each output position reads the input bilinearly at its regular place plus a learned offset.
#pragma once
#include "strata/nn/activation.hpp"
#include "strata/nn/conv.hpp"
#include "strata/nn/layer.hpp"
#include "strata/ops/conv.hpp"

namespace strata::nn {

// x [N, H, W, C]; offset [N, OH, OW, 2 * kh * kw]: for tap t = i * kw + j, offset[..., 2t] moves
// its row and offset[..., 2t + 1] its column (in pixels); w [kh, kw, C, O] (Conv2d's layout);
// b [O] or undefined. OH, OW and the regular tap positions follow conv2d's options (stride,
// padding, dilation; groups 1). Samples outside the image read zeros, so zero offsets give
// conv2d(x, w, b, options) exactly (TensorLayer clamps positions to the border instead).
Tensor deform_conv2d(const Tensor& x, const Tensor& offset, const Tensor& w, const Tensor& b = Tensor(),
                     const ConvOptions& options = {});

// Called with {x, offset}; the offsets usually come from a Conv2d(2 * kh * kw) of x, as in
// TensorLayer's example. W [1, 1, kh * kw, in, n_filter] (TensorLayer's), b [n_filter].
// Padding defaults to SAME, stride to 1 (TensorLayer's only mode); groups must be 1.
#define STRATA_DEFORMABLECONV2D_OPTIONS(X)                                                          \
  STRATA_CONV_FIELDS(X, 32, (SpatialSizes{3, 3}), (ConvOptions{.padding = Padding::same()}), \
                     (truncated_normal(0.0, 0.02)))
STRATA_OPTIONS(DeformableConv2dOptions, STRATA_DEFORMABLECONV2D_OPTIONS);
class DeformableConv2d : public Layer {
 public:
  using Options = DeformableConv2dOptions;
  STRATA_LAYER_MOVABLE(DeformableConv2d)
  explicit DeformableConv2d(Options options, std::string name = "");
  explicit DeformableConv2d(int64_t n_filter = 32, SpatialSizes filter_size = {3, 3}, Activation act = {},
                            ConvOptions options = ConvOptions{.padding = Padding::same()}, std::string name = "",
                            int64_t in_channels = -1, bool use_bias = true, Initializer w_init = truncated_normal(0.0, 0.02),
                            Initializer b_init = zeros_init());
  // filter_size with two values; in_channels once inferred.
  const Options& options() const { return options_; }
  Tensor W, b;

 protected:
  void build_many(const std::vector<Shape>& input_shapes) override;
  Tensor forward_many(const std::vector<Tensor>& xs) override;
  void build(const Shape& input_shape) override;
  Tensor forward(const Tensor& x) override;

 private:
  Options options_;
};

}  // namespace strata::nn
