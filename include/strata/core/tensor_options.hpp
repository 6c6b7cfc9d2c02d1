// TensorOptions: the dtype and device a new tensor is made with, in one argument that converts
// from either (zeros(shape, kInt64), zeros(shape, device), zeros(shape, {kFloat64, device})).
#pragma once
#include "strata/core/device.hpp"
#include "strata/core/dtype.hpp"

namespace strata {

struct TensorOptions {
  DType dtype = kFloat32;
  Device device = kCPU;

  TensorOptions() = default;
  TensorOptions(DType d) : dtype(d) {}    // NOLINT: implicit on purpose, see above
  TensorOptions(Device d) : device(d) {}  // NOLINT
  TensorOptions(DType d, Device dev) : dtype(d), device(dev) {}
};

}  // namespace strata
