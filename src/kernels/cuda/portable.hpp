// Kernels written once for two compilers. nvcc runs them on the GPU; a host compiler runs the
// same per-element code in a loop: the emulated backend of tests/cuda, which puts the CUDA
// backend's index arithmetic, dtype handling and results through the conformance table on
// machines without a GPU (docs/cuda.md). So a kernel file here (*.cu) uses only what this header
// offers: for_each_index with a STRATA_HD lambda, atomic_add, and the Indexer (indexer.hpp). No
// shared memory, warps or intrinsics: those belong in CUDA-only files (runtime/).
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>

#ifdef __CUDACC__
#include <cuda_runtime.h>
#define STRATA_HD __host__ __device__
#else
#define STRATA_HD
#endif

// The emulated build's symbols live in another inline namespace, so a test program can hold both
// it and libstrata's GPU build of the same functions.
#ifdef STRATA_CUDA_EMULATED
#define STRATA_CUDA_BUILD emulated
#else
#define STRATA_CUDA_BUILD gpu
#endif

namespace strata::kernels::cuda {
inline namespace STRATA_CUDA_BUILD {

#ifdef __CUDACC__
cudaStream_t current_stream();              // runtime/runtime.cpp: the current device's stream
void check_launch(const char* kernel);      // raises strata::Error naming `kernel` on a launch error

template <class F>
__global__ void for_each_index_kernel(int64_t n, F f) {
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) f(i);
}
#endif

// Runs f(i) for every i in [0, n): a grid-stride kernel on the current stream, or a loop on the
// host in the emulated build. `kernel` names it in errors. f is a `[=] STRATA_HD (int64_t i)`
// lambda: it captures pointers and Indexers by value.
template <class F>
void for_each_index(int64_t n, const char* kernel, F f) {
  if (n <= 0) return;
#ifdef __CUDACC__
  constexpr int64_t threads = 256;
  // Enough blocks to fill any current GPU several times over; the loop covers the rest.
  const int64_t blocks = std::min<int64_t>((n + threads - 1) / threads, 65536);
  for_each_index_kernel<<<static_cast<unsigned>(blocks), static_cast<unsigned>(threads), 0, current_stream()>>>(n, f);
  check_launch(kernel);
#else
  (void)kernel;
  for (int64_t i = 0; i < n; ++i) f(i);
#endif
}

// *p += v, atomically on the GPU (scatter-adds whose targets repeat). int64 goes through the
// unsigned 64-bit atomicAdd: two's complement addition is the same operation.
template <class T>
STRATA_HD inline void atomic_add(T* p, T v) {
#ifdef __CUDA_ARCH__
  if constexpr (sizeof(T) == 8 && !std::is_floating_point_v<T>) {
    atomicAdd(reinterpret_cast<unsigned long long*>(p), static_cast<unsigned long long>(v));
  } else {
    atomicAdd(p, v);
  }
#else
  *p += v;
#endif
}

}  // namespace STRATA_CUDA_BUILD
}  // namespace strata::kernels::cuda
