// Storage: a reference-counted buffer on a device, from that device's allocator. Tensors that
// are views share one Storage. Meta storage has a size but no bytes.
#pragma once
#include <cstddef>
#include <functional>
#include <memory>

#include "strata/core/device.hpp"

namespace strata {

class DeviceAllocator;

class Storage {
 public:
  Storage(size_t nbytes, Device device);
  // Memory owned elsewhere (a NumPy array, a DLPack tensor), viewed without a copy: `release`
  // runs when the last tensor viewing it goes, instead of the allocator's free (which still
  // copies to and from it).
  Storage(void* data, size_t nbytes, Device device, std::function<void()> release);
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
  std::function<void()> release_;  // set for borrowed memory only
};

}  // namespace strata
