// SubpixelConv1d / SubpixelConv2d (TensorLayer's, for SRGAN): the sub-pixel rearrangement
// ("pixel shuffle", tf.depth_to_space) of channels-last inputs. The channel axis, seen as
// [scale (, scale), C / scale^rank], moves its scale factors into the spatial axes:
//   1-D: out[n, w*s + i, c]          = in[n, w, i*C' + c]
//   2-D: out[n, h*s + i, w*s + j, c] = in[n, h, w, (i*s + j)*C' + c]
// (TensorFlow's DCR order; PyTorch's pixel_shuffle on NCHW orders the channels c*s*s + i*s + j.)
#pragma once
#include "strata/nn/activation.hpp"
#include "strata/nn/layer.hpp"
#include "strata/nn/options.hpp"

namespace strata::nn {

// The functional form: x [N, spatial... (rank 1 or 2), C] with C divisible by scale^rank.
Tensor depth_to_space(const Tensor& x, int64_t scale);

// The options of SubpixelConv1d and SubpixelConv2d.
#define STRATA_SUBPIXEL_CONV_OPTIONS(X)                           \
  X(int64_t, scale, 2, at_least(1), "the upscaling factor per spatial axis") \
  X(Activation, act, {}, any(), "applied to the output: a name (\"relu\") or a function; empty: none")
STRATA_OPTIONS(SubpixelConvOptions, STRATA_SUBPIXEL_CONV_OPTIONS);

// act(depth_to_space(x, scale)) on inputs of `rank` spatial axes; the classes below fix it.
class SubpixelConv : public Layer {
 public:
  using Options = SubpixelConvOptions;
  STRATA_LAYER_MOVABLE(SubpixelConv)
  SubpixelConv(std::string kind, int rank, Options options, std::string name);
  SubpixelConv(std::string kind, int rank, int64_t scale, Activation act, std::string name);
  const Options& options() const { return options_; }

 protected:
  Tensor forward(const Tensor& x) override;

 private:
  int rank_;
  Options options_;
};

struct SubpixelConv1d : SubpixelConv {
  STRATA_LAYER_MOVABLE(SubpixelConv1d)
  explicit SubpixelConv1d(Options options, std::string name = "")
      : SubpixelConv("subpixelconv1d", 1, std::move(options), std::move(name)) {}
  explicit SubpixelConv1d(int64_t scale = 2, Activation act = {}, std::string name = "")
      : SubpixelConv1d(Options{.scale = scale, .act = std::move(act)}, std::move(name)) {}
};
struct SubpixelConv2d : SubpixelConv {
  STRATA_LAYER_MOVABLE(SubpixelConv2d)
  explicit SubpixelConv2d(Options options, std::string name = "")
      : SubpixelConv("subpixelconv2d", 2, std::move(options), std::move(name)) {}
  explicit SubpixelConv2d(int64_t scale = 2, Activation act = {}, std::string name = "")
      : SubpixelConv2d(Options{.scale = scale, .act = std::move(act)}, std::move(name)) {}
};

}  // namespace strata::nn
