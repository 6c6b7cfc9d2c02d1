// The size of a tensor whose shape comes from outside (a file's header, a record in a cache
// file): every reader asks here before it allocates, so that overflow, negative sizes, too
// many dimensions and absurd byte counts are refused the same way everywhere.
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "strata/core/shape.hpp"

namespace strata {

// A shape that passed checked_size, with its element and byte counts.
struct CheckedSize {
  Shape shape;
  int64_t numel = 0;
  uint64_t bytes = 0;  // numel * itemsize
};

// Ensures: at most kMaxDims sizes, none negative; the product of the sizes (a zero counted as
// one, so that every stride fits too) times `itemsize` fits in int64_t; the byte count is at
// most limits().max_tensor_bytes. Throws strata::Error "<what>: shape [...] ..." otherwise, a
// LimitError (core/limits.hpp) for the limit. `what` names the source: the file and the tensor.
// The caller still compares `bytes` with the bytes its input holds.
CheckedSize checked_size(std::span<const int64_t> dims, std::size_t itemsize, std::string_view what);
CheckedSize checked_size(std::span<const uint64_t> dims, std::size_t itemsize, std::string_view what);

}  // namespace strata
