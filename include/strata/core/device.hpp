// Device: where a tensor's storage lives. CPU is implemented; CUDA is reserved so that user
// code naming devices does not change when the CUDA backend (kernels/cuda) lands. Meta tensors
// have a shape and a dtype but no data: static models run their layers on them to learn shapes
// without computing or allocating activations.
#pragma once
#include <cstdint>
#include <string>

namespace strata {

enum class DeviceType : uint8_t { CPU, CUDA, Meta };

struct Device {
  DeviceType type = DeviceType::CPU;
  int index = 0;
  bool operator==(const Device& o) const { return type == o.type && index == o.index; }
  bool operator!=(const Device& o) const { return !(*this == o); }
  std::string str() const;
};

inline const Device kCPU{DeviceType::CPU, 0};
inline const Device kMeta{DeviceType::Meta, 0};

}  // namespace strata
