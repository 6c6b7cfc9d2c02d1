// SubpixelConv1d / SubpixelConv2d (TensorLayer's, for SRGAN): the sub-pixel rearrangement
// ("pixel shuffle", tf.depth_to_space) of channels-last inputs. The channel axis, seen as
// [scale (, scale), C / scale^rank], moves its scale factors into the spatial axes:
//   1-D: out[n, w*s + i, c]          = in[n, w, i*C' + c]
//   2-D: out[n, h*s + i, w*s + j, c] = in[n, h, w, (i*s + j)*C' + c]
// (TensorFlow's DCR order; PyTorch's pixel_shuffle on NCHW orders the channels c*s*s + i*s + j.)
#pragma once
#include "strata/nn/activation.hpp"
#include "strata/nn/layer.hpp"

namespace strata::nn {

// The functional form: x [N, spatial... (rank 1 or 2), C] with C divisible by scale^rank.
Tensor depth_to_space(const Tensor& x, int64_t scale);

// act(depth_to_space(x, scale)) on inputs of `rank` spatial axes; the classes below fix it.
class SubpixelConv : public Layer {
 public:
  STRATA_LAYER_MOVABLE(SubpixelConv)
  SubpixelConv(std::string kind, int rank, int64_t scale, Activation act, std::string name);
  void get_config(nlohmann::json& config) const override;

 protected:
  Tensor forward(const Tensor& x) override;

 private:
  int rank_;
  int64_t scale_;
  Activation act_;
};

struct SubpixelConv1d : SubpixelConv {
  STRATA_LAYER_MOVABLE(SubpixelConv1d)
  explicit SubpixelConv1d(int64_t scale = 2, Activation act = {}, std::string name = "")
      : SubpixelConv("subpixelconv1d", 1, scale, std::move(act), std::move(name)) {}
};
struct SubpixelConv2d : SubpixelConv {
  STRATA_LAYER_MOVABLE(SubpixelConv2d)
  explicit SubpixelConv2d(int64_t scale = 2, Activation act = {}, std::string name = "")
      : SubpixelConv("subpixelconv2d", 2, scale, std::move(act), std::move(name)) {}
};

}  // namespace strata::nn
