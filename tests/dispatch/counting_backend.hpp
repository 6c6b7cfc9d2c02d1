// A test backend registered from outside the library, as a plugin would be: the Custom device
// type with a host-memory allocator and, in every dispatch table, the CPU kernel wrapped in a
// call counter. It needs no change to the library, which is what its tests prove.
#pragma once
#include <cstdint>
#include <map>
#include <string>

#include "strata/core/device.hpp"

namespace strata::testing {

inline const Device kCounting{DeviceType::Custom, 0};

struct CountingBackend {
  // Registers the allocator and the kernels (once; later calls do nothing).
  static void install();
  // Kernel calls per family name since the last reset.
  static std::map<std::string, int64_t>& calls();
  // Bytes copied through the allocator's host copies, both ways.
  static int64_t& copied_bytes();
  // Whether the allocator tells the library that host code may read its memory. When false,
  // item(), to_vector() and transfers go through copy_to_host / copy_from_host.
  static void set_host_accessible(bool on);
};

}  // namespace strata::testing
