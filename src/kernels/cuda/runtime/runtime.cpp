#include "kernels/cuda/runtime/runtime.hpp"

#include <cstdlib>
#include <mutex>
#include <string>

#include "strata/core/error.hpp"

namespace strata::kernels::cuda {
inline namespace STRATA_CUDA_BUILD {

void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess) throw Error(std::string("CUDA: ") + what + ": " + cudaGetErrorString(status));
}

bool env_equals(const char* name, const char* value) {
  const char* v = std::getenv(name);
  return v && std::string(v) == value;
}

// STRATA_CUDA_SYNC=1 (debugging): wait for every kernel and check it, so that a fault in one is
// raised naming it, not by whichever later call happens to wait.
void check_launch(const char* kernel) {
  static const bool sync_every_launch = env_equals("STRATA_CUDA_SYNC", "1");
  check(cudaGetLastError(), kernel);
  if (sync_every_launch) check(cudaStreamSynchronize(current_stream()), kernel);
}

bool tf32_enabled() {
  static const bool on = env_equals("STRATA_CUDA_TF32", "1");
  return on;
}

const char* float32_math_name() { return tf32_enabled() ? "TF32 (STRATA_CUDA_TF32=1)" : "FP32"; }

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

namespace {
struct DeferredCheck {
  std::mutex mutex;
  int64_t* slot = nullptr;  // device memory: [first bad position, its id]
  bool pending = false;     // a check ran since the last report
  std::string op;
  int64_t classes = 0;
};
DeferredCheck& deferred() {
  static DeferredCheck* d = new DeferredCheck;  // never destroyed, as the device memory
  return *d;
}
}  // namespace

int64_t* class_id_check_slot(const char* op, int64_t classes) {
  DeferredCheck& d = deferred();
  std::lock_guard lock(d.mutex);
  if (!d.slot) check(cudaMalloc(&d.slot, 2 * sizeof(int64_t)), "allocating the class-id check");
  if (!d.pending) {  // the first check since the last report names the op
    check(cudaMemsetAsync(d.slot, 0x7f, 2 * sizeof(int64_t), current_stream()), "resetting the class-id check");
    d.pending = true, d.op = op, d.classes = classes;
  }
  return d.slot;
}

void raise_deferred_errors() {
  DeferredCheck& d = deferred();
  std::lock_guard lock(d.mutex);
  if (!d.pending) return;
  int64_t found[2];
  check(cudaMemcpy(found, d.slot, sizeof found, cudaMemcpyDeviceToHost), "reading the class-id check");
  d.pending = false;
  if (found[0] != kNoBadPosition)
    throw Error(d.op + ": target class id " + std::to_string(found[1]) + " at position " + std::to_string(found[0]) +
                " is out of range [0, " + std::to_string(d.classes) + ") for " + std::to_string(d.classes) +
                " classes (found on the GPU; raised at the next read from it)");
}

void synchronize() {
  check(cudaStreamSynchronize(current_stream()), "synchronising the stream");
  raise_deferred_errors();
}

}  // namespace STRATA_CUDA_BUILD
}  // namespace strata::kernels::cuda
