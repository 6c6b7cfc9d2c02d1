// The pooling kernel families on channels-last tensors. Averages exclude padding; padding never
// wins a max.
#pragma once
#include <memory>

#include "strata/dispatch/stub.hpp"
#include "strata/dispatch/window.hpp"

namespace strata::dispatch {

// What a backend's pooling backward needs from its forward (e.g. oneDNN's workspace, the
// winners of a max); each backend derives its own.
struct PoolWorkspace {
  virtual ~PoolWorkspace() = default;
};

// y[N, out..., C]. With `workspace` non-null, the forward keeps what pool_backward needs.
extern Stub<Tensor(const Tensor& x, const PoolGeometry& g, std::shared_ptr<PoolWorkspace>* workspace)> pool_forward;
// dL/dx from dy; x and the forward's workspace as pool_forward returned them.
extern Stub<Tensor(const Tensor& dy, const Tensor& x, const PoolGeometry& g,
                   const std::shared_ptr<PoolWorkspace>& workspace)>
    pool_backward;

}  // namespace strata::dispatch
