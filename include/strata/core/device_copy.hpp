// Moving bytes between devices, through each device's allocator (core/allocator.hpp). No
// autograd and no kernels: Tensor::to(Device) builds on these in strata/ops.
#pragma once
#include <cstdint>
#include <utility>

#include "strata/core/tensor.hpp"

namespace strata {

// A contiguous tensor on `device` with the values of `x`, which must be contiguous. Between two
// devices the host cannot read, the bytes go through a host buffer. Copying to the meta device
// keeps only shape and dtype; copying from it raises NoDataError.
Tensor copy_contiguous_to(const Tensor& x, Device device);
// `x` itself when host code can read its memory, else a host copy of the part of its storage the
// view reaches, viewed with the same sizes and strides.
Tensor host_readable(const Tensor& x);
// The elements [first, last] of its storage that a non-empty view reaches (negative strides
// included), counted from the storage's start.
std::pair<int64_t, int64_t> reached_elements(const Tensor& x);

}  // namespace strata
