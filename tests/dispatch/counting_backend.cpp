#include "dispatch/counting_backend.hpp"

#include <cstring>
#include <utility>

#include "strata/core/allocator.hpp"
#include "strata/dispatch/stubs.hpp"

namespace strata::testing {
namespace {

bool host_visible = true;

// Host memory from the CPU's caching allocator; copies are memcpy, counted.
class CountingMemory final : public DeviceAllocator {
 public:
  void* allocate(size_t nbytes, int) override { return CpuAllocator::allocate(nbytes); }
  void deallocate(void* p, size_t nbytes, int) override { CpuAllocator::deallocate(p, nbytes); }
  bool host_accessible() const override { return host_visible; }
  void copy_to_host(void* host, const void* device, size_t nbytes, int) override {
    CountingBackend::copied_bytes() += static_cast<int64_t>(nbytes);
    std::memcpy(host, device, nbytes);
  }
  void copy_from_host(void* device, const void* host, size_t nbytes, int) override {
    CountingBackend::copied_bytes() += static_cast<int64_t>(nbytes);
    std::memcpy(device, host, nbytes);
  }
};

// The kernel of `stub` for this backend: count the call, run the CPU's kernel (which makes its
// results on the device of its inputs, here the custom one).
template <auto& stub, class Signature>
struct Counted;
template <auto& stub, class R, class... Args>
struct Counted<stub, R(Args...)> {
  static R run(Args... args) {
    ++CountingBackend::calls()[stub.name()];
    return stub.get(DeviceType::CPU)(std::forward<Args>(args)...);
  }
};

}  // namespace

void CountingBackend::install() {
  static const bool installed = [] {
    static CountingMemory memory;
    register_allocator(DeviceType::Custom, &memory);
#define STRATA_REGISTER_COUNTED(name) \
  dispatch::name.set(DeviceType::Custom, &Counted<dispatch::name, decltype(dispatch::name)::Signature>::run);
    STRATA_DISPATCH_STUBS(STRATA_REGISTER_COUNTED)
#undef STRATA_REGISTER_COUNTED
    return true;
  }();
  (void)installed;
}

std::map<std::string, int64_t>& CountingBackend::calls() {
  static std::map<std::string, int64_t> counts;
  return counts;
}

int64_t& CountingBackend::copied_bytes() {
  static int64_t bytes = 0;
  return bytes;
}

void CountingBackend::set_host_accessible(bool on) { host_visible = on; }

}  // namespace strata::testing
