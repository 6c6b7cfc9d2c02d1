#pragma once
#include "kernels/cuda/portable.hpp"
#include "strata/core/allocator.hpp"

namespace strata::kernels::cuda {
inline namespace STRATA_CUDA_BUILD {

// The allocator the backend registers for DeviceType::CUDA.
DeviceAllocator& device_memory();

}  // namespace STRATA_CUDA_BUILD
}  // namespace strata::kernels::cuda
