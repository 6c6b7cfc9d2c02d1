// Element conversions as the CPU backend does them (docs/conventions.md): to bool is != 0, a
// float to an integer type saturates to its range with NaN as 0, the rest is static_cast.
#pragma once
#include <limits>
#include <type_traits>

#include "kernels/cuda/portable.hpp"

namespace strata::kernels::cuda {
inline namespace STRATA_CUDA_BUILD {

template <class O, class I>
STRATA_HD inline O convert(I v) {
  if constexpr (std::is_same_v<O, bool>) {
    return v != I(0);
  } else if constexpr (std::is_floating_point_v<I> && std::is_integral_v<O>) {
    constexpr I lo = static_cast<I>(std::numeric_limits<O>::min());
    constexpr I hi = static_cast<I>(std::numeric_limits<O>::max());
    if (!(v == v)) return O(0);
    return v <= lo ? std::numeric_limits<O>::min() : v >= hi ? std::numeric_limits<O>::max() : static_cast<O>(v);
  } else {
    return static_cast<O>(v);
  }
}

}  // namespace STRATA_CUDA_BUILD
}  // namespace strata::kernels::cuda
