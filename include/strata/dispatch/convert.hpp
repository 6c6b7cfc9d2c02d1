// One element converted to another element type, as every backend converts (docs/conventions.md):
// to bool is `!= 0`; a floating value to an integer type saturates to the type's range, NaN as 0
// (a plain C++ cast of an out-of-range value is undefined behaviour: UBSan reported 260 -> uint8);
// bfloat16 converts through float32 (a float64 rounds twice, as PyTorch's does); the rest is
// static_cast. constexpr, so that CUDA device code may call it (nvcc's relaxed
// constexpr) and vectorising CPU loops inline it.
#pragma once
#include <limits>
#include <type_traits>

#include "strata/core/bfloat16.hpp"

namespace strata::dispatch {

template <class O, class I>
constexpr O convert_element(I v) {
  if constexpr (std::is_same_v<I, bfloat16>) {
    return convert_element<O>(static_cast<float>(v));
  } else if constexpr (std::is_same_v<O, bfloat16>) {
    return O(static_cast<float>(v));
  } else if constexpr (std::is_same_v<O, bool>) {
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

}  // namespace strata::dispatch
