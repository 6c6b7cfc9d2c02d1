// Spatial transformer network (Jaderberg et al. 2015; TensorLayer's SpatialTransformer2dAffine):
// a learned affine map of each image, read back by bilinear sampling.
#pragma once
#include <cstdint>
#include <vector>

#include "strata/nn/layer.hpp"
#include "strata/nn/options.hpp"

namespace strata::nn {

// Samples x [N, H, W, C] through the affine maps theta [N, 2, 3] (or [N, 6]) onto an
// [N, out_h, out_w, C] grid. Coordinates are normalised to [-1, 1] with pixel centres at
// (2k + 1) / size - 1 (PyTorch's affine_grid + grid_sample with align_corners=False; the
// identity theta returns x when the sizes agree); theta maps (x_t, y_t, 1) of the output to
// (x_s, y_s) in the input. Outside the input reads zeros.
Tensor affine_transform2d(const Tensor& x, const Tensor& theta, int64_t out_h, int64_t out_w);

// Called with {theta_input, x} (TensorLayer's order): theta = tanh(flatten(theta_input) · W + b),
// W [features, 6] starting at zeros and b [6] at the identity (1, 0, 0, 0, 1, 0), as
// TensorLayer's (whose tanh makes the starting map a zoom by tanh(1), not the identity).
#define STRATA_SPATIAL_TRANSFORMER2D_AFFINE_OPTIONS(X)                                           \
  X(std::vector<int64_t>, out_size, (std::vector<int64_t>{40, 40}), at_least(1), "output [height, width]") \
  X(int64_t, in_channels, -1, at_least(-1), "theta_input's features; -1: inferred from the first input")
STRATA_OPTIONS(SpatialTransformer2dAffineOptions, STRATA_SPATIAL_TRANSFORMER2D_AFFINE_OPTIONS);

class SpatialTransformer2dAffine : public Layer {
 public:
  using Options = SpatialTransformer2dAffineOptions;
  STRATA_LAYER_MOVABLE(SpatialTransformer2dAffine)
  explicit SpatialTransformer2dAffine(Options options, std::string name = "");
  explicit SpatialTransformer2dAffine(std::vector<int64_t> out_size = {40, 40}, int64_t in_channels = -1,
                                      std::string name = "");
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
