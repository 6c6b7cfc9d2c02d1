// The CUDA runtime as the backend uses it: errors as strata::Error, the device count, and one
// stream per process on which every kernel, library call and copy runs in order (so freed
// memory can be reused at once: later work on the stream runs after earlier work that used it).
#pragma once
#include <cuda_runtime.h>

#include <string>

#include "kernels/cuda/portable.hpp"

namespace strata::kernels::cuda {
inline namespace STRATA_CUDA_BUILD {

// Raises strata::Error "CUDA: <what>: <the runtime's message>" unless `status` is cudaSuccess.
void check(cudaError_t status, const char* what);
// GPUs this process sees; 0 without a driver or a device, with the runtime's reason in `why`
// (never raises).
int device_count(std::string* why = nullptr);
// The stream every kernel, copy and library call runs on (created on first use).
cudaStream_t current_stream();
// Waits until everything queued on the stream has run, then raise_deferred_errors().
void synchronize();
// Raises the error a device-side check found since the last call (class ids out of range, named
// as the CPU names them), once. Called after every wait for the stream, so a bad id in a
// training step costs no wait of its own and is raised by the next read of a result.
void raise_deferred_errors();
// STRATA_CUDA_TF32=1: float32 matrix products and convolutions may use TF32 tensor cores (inputs
// rounded to a 10-bit mantissa, float32 accumulation). Off by default.
bool tf32_enabled();
// The float32 math mode in words, for the libraries' log lines.
const char* float32_math_name();
// Whether environment variable `name` is set to exactly `value` (the backend's STRATA_CUDA_*
// switches).
bool env_equals(const char* name, const char* value);

}  // namespace STRATA_CUDA_BUILD
}  // namespace strata::kernels::cuda
