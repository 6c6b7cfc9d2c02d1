#include "strata/core/storage.hpp"

#include "strata/core/allocator.hpp"
#include "strata/core/error.hpp"

namespace strata {

std::string Device::str() const {
  return type == DeviceType::CPU ? "cpu" : "cuda:" + std::to_string(index);
}

Storage::Storage(size_t nbytes, Device device) : nbytes_(nbytes), device_(device) {
  STRATA_CHECK(device.type == DeviceType::CPU, "device ", device.str(),
               " is not available in this build (only cpu is)");
  data_ = CpuAllocator::allocate(nbytes);
}

Storage::~Storage() { CpuAllocator::deallocate(data_, nbytes_); }

}  // namespace strata
