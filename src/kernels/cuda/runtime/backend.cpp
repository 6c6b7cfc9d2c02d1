// libstrata_cuda's initialiser: when the process sees a GPU, the CUDA row of every dispatch table
// it has kernels for, and its memory; otherwise the reason, for the error that asking for a CUDA
// tensor then gives. libstrata loads this library the first time CUDA is asked for.
#include <string>

#include "kernels/cuda/families.hpp"
#include "kernels/cuda/runtime/device_memory.hpp"
#include "kernels/cuda/runtime/runtime.hpp"
#include "strata/core/allocator.hpp"
#include "strata/dispatch/stubs.hpp"

namespace strata::kernels::cuda {
namespace {

[[maybe_unused]] const bool registered = [] {
  std::string why;
  if (device_count(&why) == 0) {
    note_device_unavailable(DeviceType::CUDA, "the CUDA backend found no GPU (" + why + ")");
    return false;
  }
  register_allocator(DeviceType::CUDA, &device_memory());
#define STRATA_REGISTER_CUDA(name) dispatch::name.set(DeviceType::CUDA, &cuda::name);
  STRATA_CUDA_PORTABLE_STUBS(STRATA_REGISTER_CUDA)
#undef STRATA_REGISTER_CUDA
  return true;
}();

}  // namespace
}  // namespace strata::kernels::cuda
