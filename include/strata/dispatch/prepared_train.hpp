// Kernels prepared once for one input shape for a compiled training step
// (nn/compiled_training.hpp): the forward made for training with its bias and activation in
// the same pass, and the backward (the activation's, the data's, the weights' and the bias's)
// made with the forward as hint. Unlike the inference kernels (prepared.hpp) they keep no
// weights: each call is given the layer's weights as they are (the optimizer steps them between
// calls) and writes the weights' gradients in the layer's own layout. Not in stubs.hpp: only
// nn/compile_train*.cpp calls these.
#pragma once
#include <memory>

#include "strata/dispatch/prepared.hpp"

namespace strata::dispatch {

class PreparedTrainKernel {
 public:
  virtual ~PreparedTrainKernel() = default;
  // y = act(op(x, w) + b). Dense float32 tensors of the prepared shapes (the caller checks); w
  // and b undefined for a pool, b undefined for no bias.
  virtual void forward(const Tensor& x, const Tensor& w, const Tensor& b, const Tensor& y) = 0;
  // From the forward's x and y and the gradient dy of y (overwritten: it becomes the gradient
  // before the activation), writes dx, dw and db where defined (w's and b's shapes), adding to
  // dw (db) instead when add_dw (add_db). dx, dw, db do not overlap x, y or dy.
  virtual void backward(const Tensor& x, const Tensor& y, const Tensor& dy, const Tensor& w, const Tensor& dx,
                        const Tensor& dw, const Tensor& db, bool add_dw, bool add_db) = 0;
};

// Convolutions of g's geometry; w [k..., C / groups, O], bias or not. `act_backward` false: the
// dy given to backward is already the gradient before the activation (its reader did that pass,
// as a pool made with relu_before does).
extern Stub<std::unique_ptr<PreparedTrainKernel>(const ConvGeometry& g, bool bias, FusedActivation act,
                                                 bool act_backward)>
    prepare_conv_train;
// x[rows, I] · w[I, O] (+ b).
extern Stub<std::unique_ptr<PreparedTrainKernel>(int64_t rows, int64_t in, int64_t out, bool bias, FusedActivation act,
                                                 bool act_backward)>
    prepare_linear_train;
// Max or average pools of g's geometry (averages exclude the padding); null where the backend has
// no prepared kernel for it (the caller runs the pool eagerly). `relu_before`: its input is a relu's output, whose
// backward the pool's backward does in the same pass (dx is the gradient before that relu).
extern Stub<std::unique_ptr<PreparedTrainKernel>(const PoolGeometry& g, bool relu_before)> prepare_pool_train;

}  // namespace strata::dispatch
