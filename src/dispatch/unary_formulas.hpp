// The unary ops' formulas (the last column of core/unary_ops.hpp) as functions of one element,
// which both backends instantiate: the CPU's kernel (kernels/cpu/elementwise.cpp) with its
// vectorised float32 exp, tanh, sigmoid and softplus (kernels/cpu/scalar_math.hpp), CUDA's
// (kernels/cuda/elementwise.cu, on the GPU and emulated on the host) with the standard library's,
// StdMath. The math is a policy M, so the two backends compute one formula.
#pragma once
#include <cmath>
#include <type_traits>

#include "strata/dispatch/elementwise.hpp"

// __host__ __device__ under nvcc, as kernels/cuda/portable.hpp defines it; nothing elsewhere.
#ifndef STRATA_HD
#ifdef __CUDACC__
#define STRATA_HD __host__ __device__
#else
#define STRATA_HD
#endif
#endif

namespace strata::dispatch {

// The formulas' math from the standard library, whose functions nvcc also compiles for the device.
// A backend's own policy derives from it and hides what it computes otherwise. It has more than
// the list uses (tan, log2, ...): a new op's formula can call them, its line in the list the only
// change. Members are templates, compiled only where a formula calls them.
struct StdMath {
#define STRATA_STD_MATH(f) \
  template <class T>       \
  STRATA_HD static T f(T v) { return std::f(v); }
  STRATA_STD_MATH(exp) STRATA_STD_MATH(exp2) STRATA_STD_MATH(expm1) STRATA_STD_MATH(log) STRATA_STD_MATH(log2)
  STRATA_STD_MATH(log10) STRATA_STD_MATH(log1p) STRATA_STD_MATH(sqrt) STRATA_STD_MATH(cbrt) STRATA_STD_MATH(sin)
  STRATA_STD_MATH(cos) STRATA_STD_MATH(tan) STRATA_STD_MATH(asin) STRATA_STD_MATH(acos) STRATA_STD_MATH(atan)
  STRATA_STD_MATH(sinh) STRATA_STD_MATH(cosh) STRATA_STD_MATH(tanh) STRATA_STD_MATH(asinh) STRATA_STD_MATH(acosh)
  STRATA_STD_MATH(atanh) STRATA_STD_MATH(erf) STRATA_STD_MATH(erfc) STRATA_STD_MATH(floor) STRATA_STD_MATH(ceil)
  STRATA_STD_MATH(trunc)
  STRATA_STD_MATH(nearbyint)  // halves to even in the default rounding mode
#undef STRATA_STD_MATH
  template <class T>
  STRATA_HD static T pow(T v, T e) {
    return std::pow(v, e);
  }
  template <class T>
  STRATA_HD static T sigmoid(T v) {
    return T(1) / (T(1) + std::exp(-v));
  }
  template <class T>
  STRATA_HD static T softplus(T v) {  // log(1 + e^v) without overflow
    return v > T(20) ? v : std::log1p(std::exp(v));
  }
};

namespace formulas {

// v < 0, without the warning that it is always false for uint8.
template <class T>
STRATA_HD constexpr bool negative(T v) {
  if constexpr (std::is_unsigned_v<T>) return false;
  else return v < T(0);
}

// v limited to [lo, hi]; NaN stays NaN.
template <class T>
STRATA_HD constexpr T clip(T v, T lo, T hi) {
  return v < lo ? lo : (v > hi ? hi : v);
}

template <UnaryOp op>
struct UnaryFormula;

// One specialisation per op of the list: apply<M>(v, a, b) is its formula column.
#define STRATA_UNARY_FORMULA(ctx, op, name, dtypes, backward, api, onnx, ...)                                    \
  template <>                                                                                                     \
  struct UnaryFormula<UnaryOp::op> {                                                                              \
    template <class M, class T>                                                                                   \
    STRATA_HD static std::conditional_t<UnaryDtypes::dtypes == UnaryDtypes::logical, bool, T> apply(              \
        T v, [[maybe_unused]] T a, [[maybe_unused]] T b) {                                                        \
      return __VA_ARGS__;                                                                                         \
    }                                                                                                             \
  };
STRATA_UNARY_OP_LIST(STRATA_UNARY_FORMULA, )
#undef STRATA_UNARY_FORMULA

}  // namespace formulas

// Whether op is defined on elements of type T (its dtypes column).
template <UnaryOp op, class T>
constexpr bool unary_accepts() {
  constexpr UnaryDtypes takes = unary_dtypes(op);
  if constexpr (takes == UnaryDtypes::logical) return true;
  else if constexpr (std::is_same_v<T, bool>) return false;
  else return takes == UnaryDtypes::numbers || std::is_floating_point_v<T>;
}

// The type of op(v) for v of type T: bool for the logical ops, T otherwise.
template <UnaryOp op, class T>
using unary_result_t = std::conditional_t<unary_dtypes(op) == UnaryDtypes::logical, bool, T>;

// y = op(v), a and b the op's parameters, with the math of M.
template <UnaryOp op, class M, class T>
STRATA_HD inline unary_result_t<op, T> unary_value(T v, T a, T b) {
  static_assert(unary_accepts<op, T>(), "the op does not take this element type (core/unary_ops.hpp)");
  return formulas::UnaryFormula<op>::template apply<M>(v, a, b);
}

// unary_value for an op known at run time, one switch per element (CUDA's kernels take the op as
// an argument). R is the result type: R = T runs the ops that give T, R = bool the logical ones;
// other ops give R().
template <class R, class M, class T>
STRATA_HD inline R unary_switch(UnaryOp op, T v, T a, T b) {
  switch (op) {
#define STRATA_UNARY_CASE(ctx, op, ...)                                                        \
  case UnaryOp::op:                                                                            \
    if constexpr (unary_accepts<UnaryOp::op, T>() && std::is_same_v<unary_result_t<UnaryOp::op, T>, R>) \
      return unary_value<UnaryOp::op, M>(v, a, b);                                             \
    break;
    STRATA_UNARY_OP_LIST(STRATA_UNARY_CASE, )
#undef STRATA_UNARY_CASE
  }
  return R();
}

// Calls f(std::integral_constant<UnaryOp, op>{}) for the op known at run time: a switch outside
// the loops, so each case instantiates a loop of its own formula (the CPU's kernel).
template <class F>
void visit_unary(UnaryOp op, F&& f) {
  switch (op) {
#define STRATA_UNARY_VISIT(ctx, op, ...) \
  case UnaryOp::op:                      \
    return f(std::integral_constant<UnaryOp, UnaryOp::op>{});
    STRATA_UNARY_OP_LIST(STRATA_UNARY_VISIT, )
#undef STRATA_UNARY_VISIT
  }
}

}  // namespace strata::dispatch
