#include "strata/core/storage.hpp"

#include "strata/core/allocator.hpp"
#include "strata/core/error.hpp"

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

Device Device::parse(const std::string& text) {
  if (text == "cpu") return kCPU;
  if (text == "meta") return kMeta;
  if (text == "cuda") return kCUDA;
  if (text.rfind("cuda:", 0) == 0 && text.size() > 5 && text.size() <= 9 &&
      text.find_first_not_of("0123456789", 5) == std::string::npos)
    return Device{DeviceType::CUDA, std::stoi(text.substr(5))};
  throw Error("unknown device '" + text + "': expected cpu, cuda, cuda:N or meta");
}

Storage::Storage(size_t nbytes, Device device)
    : data_(nullptr),
      nbytes_(nbytes),
      device_(device),
      allocator_(device.type == DeviceType::Meta ? nullptr : &allocator_for(device)) {
  if (allocator_) data_ = allocator_->allocate(nbytes, device.index);
}

Storage::Storage(void* data, size_t nbytes, Device device, std::function<void()> release)
    : data_(data), nbytes_(nbytes), device_(device), allocator_(&allocator_for(device)), release_(std::move(release)) {
  STRATA_CHECK(device.type != DeviceType::Meta, "borrowed memory cannot be on the meta device");
}

Storage::~Storage() {
  if (release_) {
    release_();
  } else if (allocator_) {
    allocator_->deallocate(data_, nbytes_, device_.index);
  }
}

}  // namespace strata
