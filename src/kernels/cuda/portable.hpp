// Kernels written once for two compilers. nvcc runs them on the GPU; a host compiler runs the
// same per-element code in a loop: the emulated backend of tests/cuda, which puts the CUDA
// backend's index arithmetic, dtype handling and results through the conformance table on
// machines without a GPU (docs/cuda.md). So a kernel file here (*.cu) uses only what this header
// offers: for_each_index with a STRATA_HD lambda, atomic_add, and the Indexer (indexer.hpp). No
// shared memory, warps or intrinsics: those belong in CUDA-only files (runtime/), or in a block
// under #ifdef __CUDACC__ whose #else does the same on the host (loss.cu's class-id check, which
// the GPU does without a wait and the emulated device on the host at once).
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
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

// A device slot [first bad position, its id] for a check of `op`'s class ids against `classes`,
// reported at the next read from the device (runtime/runtime.hpp, raise_deferred_errors). GPU
// build only: the emulated device checks ids on the host at once.
int64_t* class_id_check_slot(const char* op, int64_t classes);
inline constexpr int64_t kNoBadPosition = 0x7f7f7f7f7f7f7f7f;  // the slot's bytes set to 0x7f

#ifdef __CUDACC__
cudaStream_t current_stream();              // runtime/runtime.cpp: the current device's stream
void check_launch(const char* kernel);      // raises strata::Error naming `kernel` on a launch error

template <class F>
__global__ void for_each_index_kernel(int64_t n, F f) {
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) f(i);
}
#endif

#ifndef __CUDACC__
// A step coprime to n near n times the golden ratio's fraction, so consecutive visits land far
// apart.
inline int64_t scramble_step(int64_t n) {
  int64_t step = std::max<int64_t>(1, static_cast<int64_t>(static_cast<double>(n) * 0.6180339887));
  while (std::gcd(step, n) != 1) ++step;
  return step == 1 && n > 1 ? n - 1 : step;  // small n: backwards (from n - 1) rather than in order
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
  // A GPU runs a launch's threads in no particular order, so the host visits the indices out of
  // order too (from n - 1, i -> i + step mod n: a permutation): a kernel whose result depends on the order of
  // its threads (one reading what another writes) fails its tests here instead of only on a GPU.
  (void)kernel;
  const int64_t step = scramble_step(n);
  for (int64_t k = 0, i = n - 1; k < n; ++k, i = i + step >= n ? i + step - n : i + step) f(i);
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
