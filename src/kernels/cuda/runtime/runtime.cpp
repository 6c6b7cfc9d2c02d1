#include "kernels/cuda/runtime/runtime.hpp"

#include "strata/core/error.hpp"

namespace strata::kernels::cuda {
inline namespace STRATA_CUDA_BUILD {

void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess) throw Error(std::string("CUDA: ") + what + ": " + cudaGetErrorString(status));
}

void check_launch(const char* kernel) { check(cudaGetLastError(), kernel); }

int device_count(std::string* why) {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    (void)cudaGetLastError();  // no driver or no device: clear the error, report none
    if (why) *why = cudaGetErrorString(status);
    return 0;
  }
  if (count == 0 && why) *why = "the driver lists no device";
  return count;
}

cudaStream_t current_stream() {
  // Non-blocking: it does not wait on the legacy default stream that other libraries may use.
  static cudaStream_t stream = [] {
    cudaStream_t s = nullptr;
    check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "creating the stream");
    return s;
  }();
  return stream;
}

void synchronize() { check(cudaStreamSynchronize(current_stream()), "synchronising the stream"); }

}  // namespace STRATA_CUDA_BUILD
}  // namespace strata::kernels::cuda
