// Host-to-device copies that do not wait for the GPU. A copy from pageable host memory must
// finish before the caller may free that memory, so it waits for the stream, and with it for all
// the work queued before it: a training loop's upload of the next batch would stall the GPU
// once per step. Instead the bytes go through a ring of pinned (page-locked) host buffers: the
// host copies into one, the stream copies it to the device in order with the kernels, and an
// event says when the buffer may be filled again.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <mutex>

#include "kernels/cuda/portable.hpp"

namespace strata::kernels::cuda {
inline namespace STRATA_CUDA_BUILD {

class PinnedStaging {
 public:
  // Copies larger than this wait for the stream instead (a batch of 128 Fashion-MNIST images is
  // 400 KB; ImageNet's at 64 is 38 MB).
  static constexpr size_t kLargest = size_t{64} << 20;
  static constexpr int kBuffers = 4;

  // Queues the copy of `nbytes` (at most kLargest) from `host` to `device` on the stream; `host`
  // may be freed when this returns. False when pinned memory could not be had (the caller then
  // copies and waits).
  bool copy_to_device(void* device, const void* host, size_t nbytes);

 private:
  struct Buffer {
    void* host = nullptr;
    size_t capacity = 0;
    cudaEvent_t done = nullptr;  // recorded after the copy out of it
  };
  std::mutex mutex_;
  Buffer buffers_[kBuffers];
  int next_ = 0;
};

}  // namespace STRATA_CUDA_BUILD
}  // namespace strata::kernels::cuda
