// Kernels prepared once for one input shape (convolutions, pools, linear layers), for compiled static models
// (nn/compiled_model.hpp): the weights already in the kernel's own layout, the bias and an activation done in the same
// pass over the output, and each run writing into a buffer the caller owns, so that running one
// allocates no tensor and builds nothing. Not in stubs.hpp: only ops/prepared.cpp calls these.
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

}  // namespace strata::dispatch
