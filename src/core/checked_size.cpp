#include "strata/core/checked_size.hpp"

#include <algorithm>
#include <limits>
#include <string>
#include <type_traits>

#include "strata/core/limits.hpp"

namespace strata {
namespace {

template <class T>
std::string shape_text(std::span<const T> dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? ", " : "") + std::to_string(dims[i]);
  return s + "]";
}

// Messages are built only when refusing: CSV calls this once a row.
template <class T>
CheckedSize checked(std::span<const T> dims, std::size_t itemsize, std::string_view what) {
  STRATA_CHECK(dims.size() <= static_cast<size_t>(kMaxDims), std::string(what), ": shape ", shape_text(dims), " has ",
               dims.size(), " dimensions, at most ", kMaxDims, " are supported");
  // extent: the bytes the shape would span with its zeros counted as ones; it bounds every
  // stride and the byte count, so checking it alone rules out overflow in both.
  uint64_t extent = itemsize, numel = 1;
  bool overflow = false;
  for (const T d : dims) {
    if constexpr (std::is_signed_v<T>)
      STRATA_CHECK(d >= 0, std::string(what), ": shape ", shape_text(dims), " has the negative size ", d);
    const auto size = static_cast<uint64_t>(d);
    overflow = overflow || __builtin_mul_overflow(extent, std::max<uint64_t>(size, 1), &extent);
    numel = overflow ? 0 : numel * size;
  }
  STRATA_CHECK(!overflow && extent <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max()), std::string(what),
               ": shape ", shape_text(dims), " of ", itemsize,
               "-byte elements is too large to be real (its byte count overflows)");
  const uint64_t bytes = numel * itemsize;
  if (bytes > limits().max_tensor_bytes)
    check_limit(what, "tensor bytes (shape " + shape_text(dims) + " of " + std::to_string(itemsize) + "-byte elements)",
                bytes, "max_tensor_bytes", limits().max_tensor_bytes);
  return {Shape(dims.begin(), dims.end()), static_cast<int64_t>(numel), bytes};
}

}  // namespace

CheckedSize checked_size(std::span<const int64_t> dims, std::size_t itemsize, std::string_view what) {
  return checked(dims, itemsize, what);
}

CheckedSize checked_size(std::span<const uint64_t> dims, std::size_t itemsize, std::string_view what) {
  return checked(dims, itemsize, what);
}

}  // namespace strata
