// Meta tensors (core/device.hpp) have a shape and a dtype but no data. A kernel that meets one
// allocates its result on the meta device (no bytes) and computes nothing, so a static model
// learns every shape without running the network.
#pragma once
#include <initializer_list>

#include "strata/core/tensor.hpp"

namespace strata::kernels::cpu {

// kMeta when any defined input is a meta tensor, else kCPU: where a kernel's result lives.
inline Device result_device(std::initializer_list<const Tensor*> inputs) {
  for (const Tensor* t : inputs)
    if (t->defined() && t->is_meta()) return kMeta;
  return kCPU;
}

}  // namespace strata::kernels::cpu
