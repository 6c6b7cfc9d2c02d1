// The int8 layers' computation (nn/int8.hpp): float input quantised to u8, then oneDNN's int8
// matmul or convolution (u8 x s8 -> s32 accumulated, per-channel output scales, float bias,
// relu post-op) writing float32. Weights are packed once into the layout oneDNN picks, and a
// primitive is made once per input shape, so repeated batch-1 calls create nothing.
// An Int8Kernel belongs to one layer and runs one call at a time (the layer's call lock).
#pragma once
#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "strata/core/tensor.hpp"

namespace strata::nn::detail {

// The quantities both kinds of int8 layer check and pack, from their float32 weight tensors.
struct Int8Weights {
  std::vector<int8_t> values;  // W rounded to the nearest integer in [-127, 127], W's layout
  std::vector<float> scales;   // input_scale * w_scale[o]: the output scales oneDNN applies
  std::vector<float> bias;     // b[o] (empty: no bias)
};
// Throws strata::Error naming `owner` for weights that are not finite, a w_scale that is not > 0,
// or sizes that do not match `out` channels.
Int8Weights pack_int8_weights(const Tensor& W, const Tensor& w_scale, const Tensor& b, int64_t out, double input_scale,
                              const std::string& owner);

// u8 quantisation of n float32 values: clamp(round(x / scale) + zero_point, 0, 255).
void quantize_u8(const float* x, int64_t n, float scale, int32_t zero_point, uint8_t* q);

// A convolution's geometry (NHWC input [n, h, w, c], weights [kh, kw, c, o]).
struct Int8ConvGeometry {
  int64_t kh, kw, stride_h, stride_w, dilation_h, dilation_w;
  int64_t pad_top, pad_left, pad_bottom, pad_right;
};

class Int8Kernel {
 public:
  // A matmul [m, in] x [in, out] (weights' layout [in, out]), or with `convolution` a convolution
  // of [n, h, w, in] (weights' layout [kh, kw, in, out]) whose geometry comes with each call
  // (SAME padding depends on the input's size).
  Int8Kernel(Int8Weights weights, int64_t in, int64_t out, int32_t zero_point, bool relu, bool convolution);
  ~Int8Kernel();
  // src: u8 [m, k] (matmul) or [n, h, w, c] (convolution); dst: float32 [m, n] or [n, oh, ow, o].
  void run(const uint8_t* src, const Shape& src_shape, float* dst, const Shape& dst_shape,
           const Int8ConvGeometry* geometry = nullptr);

 private:
  struct Plan;
  // At most kMaxPlans input shapes are kept (a served model sees one per batch size).
  static constexpr size_t kMaxPlans = 64;
  Plan& plan_for(const Shape& src_shape, const Shape& dst_shape, const Int8ConvGeometry* geometry);
  std::unique_ptr<Plan> make_plan(const Shape& src_shape, const Shape& dst_shape, const Int8ConvGeometry* geometry);
  Int8Weights weights_;
  int64_t in_, out_;
  bool conv_;
  int32_t zero_point_;
  bool relu_;
  std::map<std::vector<int64_t>, std::unique_ptr<Plan>> plans_;  // by src shape
};

}  // namespace strata::nn::detail
