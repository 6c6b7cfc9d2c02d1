// The per-element formulas of the element-wise families (elementwise.cu), for device and host.
// The unary ops' are shared with the CPU (dispatch/unary_formulas.hpp, here with the standard
// library's math, StdMath); the binary ops' are the CPU's (kernels/cpu/elementwise.cpp).
#pragma once
#include <cmath>
#include <type_traits>

#include "dispatch/unary_formulas.hpp"
#include "kernels/cuda/portable.hpp"
#include "strata/dispatch/convert.hpp"
#include "strata/dispatch/elementwise.hpp"

namespace strata::kernels::cuda {
inline namespace STRATA_CUDA_BUILD {

// op(x, y) for the arithmetic ops and the fused backward helpers (not the comparisons).
template <class T>
STRATA_HD inline T binary_value(dispatch::BinaryOp op, T x, T y) {
  using enum dispatch::BinaryOp;
  switch (op) {
    case add: return T(x + y);
    case sub: return T(x - y);
    case mul: return T(x * y);
    case div:
      if constexpr (std::is_floating_point_v<T>) return x / y;
      else return y == 0 ? T(0) : T(x / y);  // ops::div rejects 0 first
    case pow: return dispatch::convert_element<T>(std::pow(double(x), double(y)));
    case maximum: return x > y || x != x ? x : y;
    case minimum: return x < y || x != x ? x : y;
    case relu_backward: return y > 0 ? x : T(0);  // (grad, output)
    case sigmoid_backward: return T(x * y * (1 - y));
    case tanh_backward: return T(x * (1 - y * y));
    default: return x;
  }
}

// op(x, y) for the comparisons and logical ops.
template <class T>
STRATA_HD inline bool compare_value(dispatch::BinaryOp op, T x, T y) {
  using enum dispatch::BinaryOp;
  switch (op) {
    case eq: return x == y;
    case ne: return x != y;
    case lt: return x < y;
    case le: return x <= y;
    case gt: return x > y;
    case ge: return x >= y;
    case logical_and: return x != T(0) && y != T(0);
    case logical_or: return x != T(0) || y != T(0);
    default: return false;
  }
}

}  // namespace STRATA_CUDA_BUILD
}  // namespace strata::kernels::cuda
