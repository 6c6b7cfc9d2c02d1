// The CUDA backend's own kernels compiled for the host (src/kernels/cuda/portable.hpp) and
// registered as a test device: memory the library must treat as the GPU's (not host-readable, so
// every read goes through the allocator's copies), the portable kernels for their families, and
// the CPU's kernels for the families the backend has no kernel for yet.
#pragma once
#include <cstddef>

#include "strata/core/device.hpp"

namespace strata::testing {

inline const Device kEmulatedCuda{DeviceType::Custom, 0};

// Registers the allocator and the kernels (once).
void install_emulated_cuda();
// Bytes the emulated device's memory has copied to the host so far.
size_t emulated_bytes_to_host();

}  // namespace strata::testing
