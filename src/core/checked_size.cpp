#include "strata/core/checked_size.hpp"

#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "strata/core/limits.hpp"

namespace strata {
namespace {

template <class T>
std::string shape_text(std::span<const T> dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? ", " : "") + std::to_string(dims[i]);
  return s + "]";
}

}  // namespace

CheckedSize checked_size(std::span<const uint64_t> dims, std::size_t itemsize, std::string_view what) {
  const std::string where(what);
  STRATA_CHECK(dims.size() <= static_cast<size_t>(kMaxDims), where, ": shape ", shape_text(dims), " has ",
               dims.size(), " dimensions, at most ", kMaxDims, " are supported");
  // extent: the bytes the shape would span with its zeros counted as ones; it bounds every
  // stride and the byte count, so checking it alone rules out overflow in both.
  uint64_t extent = itemsize, numel = 1;
  bool overflow = false;
  for (uint64_t d : dims) {
    overflow = overflow || __builtin_mul_overflow(extent, std::max<uint64_t>(d, 1), &extent);
    numel = overflow ? 0 : numel * d;
  }
  STRATA_CHECK(!overflow && extent <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max()), where, ": shape ",
               shape_text(dims), " of ", itemsize, "-byte elements is too large to be real (its byte count overflows)");
  const uint64_t bytes = numel * itemsize;
  check_limit(what, "tensor bytes (shape " + shape_text(dims) + " of " + std::to_string(itemsize) + "-byte elements)",
              bytes, "max_tensor_bytes", limits().max_tensor_bytes);
  return {Shape(dims.begin(), dims.end()), static_cast<int64_t>(numel), bytes};
}

CheckedSize checked_size(std::span<const int64_t> dims, std::size_t itemsize, std::string_view what) {
  for (int64_t d : dims)
    STRATA_CHECK(d >= 0, std::string(what), ": shape ", shape_text(dims), " has the negative size ", d);
  const std::vector<uint64_t> sizes(dims.begin(), dims.end());
  return checked_size(std::span<const uint64_t>(sizes), itemsize, what);
}

}  // namespace strata
