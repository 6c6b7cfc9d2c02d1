#include "strata/core/storage.hpp"

#include "strata/core/allocator.hpp"
#include "strata/core/error.hpp"

namespace strata {

std::string Device::str() const {
  switch (type) {
    case DeviceType::CPU: return "cpu";
    case DeviceType::CUDA: return "cuda:" + std::to_string(index);
    case DeviceType::Meta: return "meta";
  }
  return "unknown";
}

Storage::Storage(size_t nbytes, Device device) : nbytes_(nbytes), device_(device) {
  STRATA_CHECK(device.type != DeviceType::CUDA, "device ", device.str(),
               " is not available in this build (cpu and meta are)");
  data_ = device.type == DeviceType::Meta ? nullptr : CpuAllocator::allocate(nbytes);
}

Storage::~Storage() { CpuAllocator::deallocate(data_, nbytes_); }  // null (meta) is fine

}  // namespace strata
