// The per-element formulas of the element-wise families (elementwise.cu), for device and host:
// the CPU's (kernels/cpu/elementwise.cpp), with the standard library's math where the CPU uses
// its vectorised float32 approximations (kernels/cpu/scalar_math.hpp; its float64 path is libm).
#pragma once
#include <cmath>
#include <type_traits>

#include "kernels/cuda/portable.hpp"
#include "strata/dispatch/convert.hpp"
#include "strata/dispatch/elementwise.hpp"

namespace strata::kernels::cuda {
inline namespace STRATA_CUDA_BUILD {

// The unary ops defined on integer tensors (the cases of integer_unary below).
inline bool unary_takes_integers(dispatch::UnaryOp op) {
  using enum dispatch::UnaryOp;
  return op == neg || op == abs || op == square || op == sign || op == relu || op == clamp;
}

template <class T>
STRATA_HD inline T sigmoid_value(T v) {
  return T(1) / (T(1) + std::exp(-v));
}

template <class T>
STRATA_HD inline T softplus_value(T v) {  // log(1 + e^v) without overflow
  return v > T(20) ? v : std::log1p(std::exp(v));
}

// op(v) for float32/float64; a and b are the op's parameters (dispatch/elementwise.hpp).
// logical_not has its own kernel.
template <class T>
STRATA_HD inline T float_unary(dispatch::UnaryOp op, T v, T a, T b) {
  using enum dispatch::UnaryOp;
  switch (op) {
    case neg: return -v;
    case abs: return v < 0 ? -v : v;
    case exp: return std::exp(v);
    case log: return std::log(v);
    case log1p: return std::log1p(v);
    case expm1: return std::expm1(v);
    case sqrt: return std::sqrt(v);
    case rsqrt: return T(1) / std::sqrt(v);
    case square: return v * v;
    case reciprocal: return T(1) / v;
    case sin: return std::sin(v);
    case cos: return std::cos(v);
    case tanh: return std::tanh(v);
    case sigmoid: return sigmoid_value(v);
    case relu: return v > 0 ? v : T(0);
    case relu6: return v < 0 ? T(0) : (v > 6 ? T(6) : v);
    case leaky_relu: return v > 0 ? v : a * v;
    case elu: return v > 0 ? v : a * (std::exp(v) - T(1));
    case selu: return T(1.0507009873554805) * (v > 0 ? v : T(1.6732632423543772) * (std::exp(v) - T(1)));
    case gelu: return T(0.5) * v * (T(1) + std::erf(v * T(0.70710678118654752)));
    case softplus: return softplus_value(v);
    case softsign: return v / (T(1) + (v < 0 ? -v : v));
    case silu: return v * sigmoid_value(v);
    case mish: return v * std::tanh(softplus_value(v));
    case hard_sigmoid: {  // PyTorch's: relu6(x + 3) / 6
      const T r = (v + 3) / 6;
      return r < 0 ? T(0) : (r > 1 ? T(1) : r);
    }
    case hard_tanh: return v < -1 ? T(-1) : (v > 1 ? T(1) : v);
    case sign: return T((v > 0) - (v < 0));
    case floor: return std::floor(v);
    case ceil: return std::ceil(v);
    case round: return std::nearbyint(v);  // half to even, as NumPy
    case clamp: return v < a ? a : (v > b ? b : v);
    case pow_scalar: return std::pow(v, a);
    case logical_not: break;
  }
  return v;
}

// v < 0, without the warning that it is always false for uint8.
template <class T>
STRATA_HD inline bool is_negative(T v) {
  if constexpr (std::is_unsigned_v<T>) return false;
  else return v < T(0);
}

// op(v) for the integer types, the ops unary_takes_integers accepts.
template <class T>
STRATA_HD inline T integer_unary(dispatch::UnaryOp op, T v, T a, T b) {
  using enum dispatch::UnaryOp;
  switch (op) {
    case neg: return T(-v);
    case abs: return is_negative(v) ? T(-v) : v;
    case square: return T(v * v);
    case sign: return T((v > 0) - is_negative(v));
    case relu: return v > 0 ? v : T(0);
    case clamp: return v < a ? a : (v > b ? b : v);
    default: return v;
  }
}

template <class T>
STRATA_HD inline T unary_value(dispatch::UnaryOp op, T v, T a, T b) {
  if constexpr (std::is_floating_point_v<T>) return float_unary(op, v, a, b);
  else return integer_unary(op, v, a, b);
}

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
