#include "strata/core/storage.hpp"

#include "strata/core/allocator.hpp"

namespace strata {

std::string Device::str() const {
  switch (type) {
    case DeviceType::CPU: return "cpu";
    case DeviceType::CUDA: return "cuda:" + std::to_string(index);
    case DeviceType::Meta: return "meta";
    case DeviceType::Custom: return "custom:" + std::to_string(index);
  }
  return "unknown";
}

Storage::Storage(size_t nbytes, Device device)
    : data_(nullptr),
      nbytes_(nbytes),
      device_(device),
      allocator_(device.type == DeviceType::Meta ? nullptr : &allocator_for(device)) {
  if (allocator_) data_ = allocator_->allocate(nbytes, device.index);
}

Storage::~Storage() {
  if (allocator_) allocator_->deallocate(data_, nbytes_, device_.index);
}

}  // namespace strata
