// Storage: a reference-counted buffer on a device. Tensors that are views share one Storage.
#pragma once
#include <cstddef>
#include <memory>

#include "strata/core/device.hpp"

namespace strata {

class Storage {
 public:
  Storage(size_t nbytes, Device device);
  ~Storage();
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;

  void* data() const { return data_; }
  size_t nbytes() const { return nbytes_; }
  Device device() const { return device_; }

 private:
  void* data_;
  size_t nbytes_;
  Device device_;
};

}  // namespace strata
