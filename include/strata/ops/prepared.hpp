// Prepared ops: a convolution's, a pool's or a linear layer's computation made once for one input shape,
// then run any number of times into an output buffer the caller owns. The weights are taken in
// the kernel's own layout when prepared (later changes to the weights are not seen: prepare
// again), the bias and the activation run in the same pass, and a run allocates no tensor and
// checks only the two shapes. The pieces of compiled static models (nn/compiled_model.hpp) and
// of the int8 layers (nn/int8.hpp); no autograd. Not included by the umbrella header.
#pragma once
#include <memory>
#include <string>

#include "strata/core/tensor.hpp"
#include "strata/ops/conv.hpp"
#include "strata/ops/pool.hpp"

namespace strata::dispatch {
class PreparedKernel;
}

namespace strata::ops {

// Whether a layer activation of this name ("relu", "tanh", "sigmoid"; "" for none) can run
// inside a prepared op's pass.
bool fusable_activation(const std::string& name);

class PreparedOp {
 public:
  PreparedOp(std::unique_ptr<dispatch::PreparedKernel> kernel, Shape input, Shape output);
  PreparedOp(PreparedOp&&) noexcept;
  PreparedOp& operator=(PreparedOp&&) noexcept;
  ~PreparedOp();
  const Shape& input_shape() const { return input_; }
  const Shape& output_shape() const { return output_; }
  // y = op(x). x and y: contiguous float32 tensors of input_shape() and output_shape() on the
  // weights' device, y not overlapping x; throws strata::Error naming what differs. One run at
  // a time per op.
  void run(const Tensor& x, const Tensor& y) const;

 private:
  std::unique_ptr<dispatch::PreparedKernel> kernel_;
  Shape input_, output_;
};

// act(conv2d(x, w, b, options)) for x of shape `x_shape` [N, H, W, C]; b may be undefined.
// float32; options.fuse_relu is ignored (give "relu" as the activation).
PreparedOp prepare_conv2d(const Shape& x_shape, const Tensor& w, const Tensor& b, const ConvOptions& options,
                          const std::string& activation);
// max_pool2d (max) or avg_pool2d for x of shape `x_shape` [N, H, W, C], float32.
PreparedOp prepare_pool2d(const Shape& x_shape, const SpatialSizes& kernel, const PoolOptions& options, bool max);
// act(x · w + b) over the last axis for x of shape `x_shape` [..., I]; w [I, O], b [O] or undefined.
PreparedOp prepare_linear(const Shape& x_shape, const Tensor& w, const Tensor& b, const std::string& activation);

// int8 inference (nn/int8.hpp, docs/quantization.md): each run quantises x per tensor to u8,
// q = clamp(round(x / input_scale) + input_zero_point, 0, 255), and returns float32
//   y[o] = act(input_scale * w_scale[o] * sum_i (q[i] - input_zero_point) * w[i, o] + b[o])
// with w's s8 values (float32, finite; rounded and clamped to [-127, 127]), w_scale [O] the
// per-channel steps (finite, > 0), b [O] float32 or undefined; activation "" or "relu". Refuses,
// naming the element, weights that are not finite and steps that are not finite and > 0.
// A convolution of x [N, H, W, C] (groups 1), w [kh, kw, C, O]:
PreparedOp prepare_int8_conv2d(const Shape& x_shape, const Tensor& w, const Tensor& w_scale, const Tensor& b,
                               const ConvOptions& options, double input_scale, int64_t input_zero_point,
                               const std::string& activation);
// Over the last axis of x [..., I], w [I, O]:
PreparedOp prepare_int8_linear(const Shape& x_shape, const Tensor& w, const Tensor& w_scale, const Tensor& b,
                               double input_scale, int64_t input_zero_point, const std::string& activation);

}  // namespace strata::ops
