// Storage: a reference-counted buffer on a device, from that device's allocator. Tensors that
// are views share one Storage. Meta storage has a size but no bytes.
#pragma once
#include <cstddef>
#include <memory>

#include "strata/core/device.hpp"

namespace strata {

class DeviceAllocator;

class Storage {
 public:
  Storage(size_t nbytes, Device device);
  ~Storage();
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;

  void* data() const { return data_; }
  size_t nbytes() const { return nbytes_; }
  Device device() const { return device_; }
  // The allocator the bytes came from; null for meta storage.
  DeviceAllocator* allocator() const { return allocator_; }

 private:
  void* data_;
  size_t nbytes_;
  Device device_;
  DeviceAllocator* allocator_;
};

}  // namespace strata
