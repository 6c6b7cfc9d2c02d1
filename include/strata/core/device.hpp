// Device: where a tensor's storage lives. CPU is implemented in the library; CUDA is filled in by
// the CUDA backend (kernels/cuda) when it is built. Meta tensors have a shape and a dtype but no
// data: static models run their layers on them to learn shapes without computing or allocating
// activations. Custom is a device type for a backend registered from outside the library (a
// test's, a plugin's): it brings its allocator (core/allocator.hpp) and its kernels
// (strata/dispatch), and the library needs no change.
#pragma once
#include <cstdint>
#include <string>

namespace strata {

enum class DeviceType : uint8_t { CPU, CUDA, Meta, Custom };
inline constexpr int kDeviceTypeCount = 4;  // the rows of every dispatch table

struct Device {
  DeviceType type = DeviceType::CPU;
  int index = 0;
  bool operator==(const Device& o) const { return type == o.type && index == o.index; }
  bool operator!=(const Device& o) const { return !(*this == o); }
  std::string str() const;
  // "cpu", "cuda", "cuda:N" or "meta", as str() writes them; anything else raises strata::Error.
  static Device parse(const std::string& text);
};

inline const Device kCPU{DeviceType::CPU, 0};
inline const Device kMeta{DeviceType::Meta, 0};
inline const Device kCUDA{DeviceType::CUDA, 0};  // available when device_available(DeviceType::CUDA)

}  // namespace strata
