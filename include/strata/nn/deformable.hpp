// Deformable convolution (Dai et al. 2017; TensorLayer's DeformableConv2d): each kernel tap of
// each output position reads the input bilinearly at its regular place plus a learned offset.
#pragma once
#include "strata/nn/activation.hpp"
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
// Padding defaults to SAME, stride to 1 (TensorLayer's only mode).
class DeformableConv2d : public Layer {
 public:
  STRATA_LAYER_MOVABLE(DeformableConv2d)
  void get_config(nlohmann::json& config) const override;
  explicit DeformableConv2d(int64_t n_filter = 32, SpatialSizes filter_size = {3, 3}, Activation act = {},
                            ConvOptions options = ConvOptions{.padding = Padding::same()}, std::string name = "",
                            int64_t in_channels = -1, bool use_bias = true, Initializer w_init = truncated_normal(0.0, 0.02),
                            Initializer b_init = zeros_init());
  Tensor W, b;

 protected:
  void build_many(const std::vector<Shape>& input_shapes) override;
  Tensor forward_many(const std::vector<Tensor>& xs) override;
  void build(const Shape& input_shape) override;
  Tensor forward(const Tensor& x) override;

 private:
  int64_t n_filter_, in_channels_;
  SpatialSizes filter_size_;
  Activation act_;
  ConvOptions options_;
  bool use_bias_;
  Initializer w_init_, b_init_;
};

}  // namespace strata::nn
