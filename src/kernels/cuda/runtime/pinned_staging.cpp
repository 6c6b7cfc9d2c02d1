#include "kernels/cuda/runtime/pinned_staging.hpp"

#include <algorithm>
#include <cstring>

#include "kernels/cuda/runtime/runtime.hpp"

namespace strata::kernels::cuda {
inline namespace STRATA_CUDA_BUILD {

bool PinnedStaging::copy_to_device(void* device, const void* host, size_t nbytes) {
  std::lock_guard lock(mutex_);
  Buffer& b = buffers_[next_];
  next_ = (next_ + 1) % kBuffers;
  if (b.done) check(cudaEventSynchronize(b.done), "waiting for a staging buffer");  // its last copy has run
  if (b.capacity < nbytes) {
    if (b.host) check(cudaFreeHost(b.host), "freeing a staging buffer");
    b.host = nullptr, b.capacity = 0;
    const size_t capacity = std::max<size_t>(nbytes, size_t{1} << 20);
    if (cudaHostAlloc(&b.host, capacity, cudaHostAllocDefault) != cudaSuccess) {
      (void)cudaGetLastError();
      b.host = nullptr;
      return false;
    }
    b.capacity = capacity;
  }
  if (!b.done) check(cudaEventCreateWithFlags(&b.done, cudaEventDisableTiming), "creating a staging event");
  std::memcpy(b.host, host, nbytes);
  check(cudaMemcpyAsync(device, b.host, nbytes, cudaMemcpyHostToDevice, current_stream()), "copy to the device");
  check(cudaEventRecord(b.done, current_stream()), "recording a staging event");
  return true;
}

}  // namespace STRATA_CUDA_BUILD
}  // namespace strata::kernels::cuda
