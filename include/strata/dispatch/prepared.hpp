// Kernels prepared once for one input shape (convolutions, pools, linear layers), for compiled static models
// (nn/compiled_model.hpp) and the int8 layers (nn/int8.hpp): the weights already in the kernel's
// own layout, the bias and an activation done in the same pass over the output, and each run
// writing into a buffer the caller owns, so that running one allocates no tensor and builds
// nothing. Not in stubs.hpp: only ops/prepared.cpp calls these.
#pragma once
#include <memory>

#include "strata/dispatch/stub.hpp"
#include "strata/dispatch/window.hpp"

namespace strata::dispatch {

// The activations a prepared kernel applies in its pass over the output.
enum class FusedActivation { none, relu, tanh, sigmoid };

class PreparedKernel {
 public:
  virtual ~PreparedKernel() = default;
  // y = kernel(x): x and y dense float32 tensors of the shapes it was prepared for (the caller,
  // ops::PreparedOp, checks), y not overlapping x. One run at a time per kernel.
  virtual void run(const Tensor& x, const Tensor& y) const = 0;
};

// act(conv(x, w) + b) for inputs of g's geometry; w [k..., C / groups, O], b [O] or undefined.
extern Stub<std::unique_ptr<PreparedKernel>(const Tensor& w, const Tensor& b, const ConvGeometry& g,
                                            FusedActivation act)>
    prepare_conv;
// Max or average pooling (averages exclude padding) for inputs of g's geometry.
extern Stub<std::unique_ptr<PreparedKernel>(const PoolGeometry& g)> prepare_pool;
// act(x[rows, I] · w[I, O] + b) for `rows` rows; b [O] or undefined.
extern Stub<std::unique_ptr<PreparedKernel>(const Tensor& w, const Tensor& b, int64_t rows, FusedActivation act)>
    prepare_linear;

// int8 inference (nn/int8.hpp, docs/quantization.md). Each run quantises the float32 input per
// tensor to u8, q = clamp(round(x / scale) + zero_point, 0, 255), into memory the kernel owns,
// multiplies it by the s8 weights with int32 accumulation and writes float32
//   y[o] = act(scale * w_scale[o] * sum_i (q[i] - zero_point) * w[i, o] + b[o]).
// w holds the s8 values as float32 (finite; rounded and clamped to [-127, 127] when prepared),
// w_scale [O] the per-channel steps (finite, > 0), b [O] or undefined; act is none or relu.
struct Int8Input {
  double scale = 1.0;
  int32_t zero_point = 0;
};
// Convolutions of g's geometry (groups 1); w [k..., C, O].
extern Stub<std::unique_ptr<PreparedKernel>(const Tensor& w, const Tensor& w_scale, const Tensor& b,
                                            const ConvGeometry& g, Int8Input in, FusedActivation act)>
    prepare_int8_conv;
// x[rows, I] · w[I, O].
extern Stub<std::unique_ptr<PreparedKernel>(const Tensor& w, const Tensor& w_scale, const Tensor& b, int64_t rows,
                                            Int8Input in, FusedActivation act)>
    prepare_int8_linear;

}  // namespace strata::dispatch
