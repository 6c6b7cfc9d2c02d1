// DType: the element types a Tensor can hold, and compile-time dispatch over them.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

#include "strata/core/bfloat16.hpp"
#include "strata/core/error.hpp"

namespace strata {

// New dtypes go at the end: the numeric values are written into model and cache files.
enum class DType : uint8_t { f32, f64, i64, i32, u8, b8, bf16 };

inline constexpr DType kFloat32 = DType::f32;
inline constexpr DType kFloat64 = DType::f64;
inline constexpr DType kInt64 = DType::i64;
inline constexpr DType kInt32 = DType::i32;
inline constexpr DType kUInt8 = DType::u8;
inline constexpr DType kBool = DType::b8;
inline constexpr DType kBFloat16 = DType::bf16;  // storage and casts; see docs/mixed_precision.md

size_t itemsize(DType t);
const char* dtype_name(DType t);  // "float32", "int64", ... as NumPy and PyTorch spell them
inline bool is_floating(DType t) { return t == DType::f32 || t == DType::f64 || t == DType::bf16; }
// The integer types taken as indices, ids and labels.
inline bool is_index_dtype(DType t) { return t == DType::i64 || t == DType::i32; }
// The dtype two operands promote to (NumPy-like: bool < u8 < i32 < i64 < bf16 < f32 < f64).
DType promote(DType a, DType b);
// clang-format off
template <class T> struct dtype_of;
template <> struct dtype_of<float> { static constexpr DType value = DType::f32; };
template <> struct dtype_of<double> { static constexpr DType value = DType::f64; };
template <> struct dtype_of<int64_t> { static constexpr DType value = DType::i64; };
template <> struct dtype_of<int32_t> { static constexpr DType value = DType::i32; };
template <> struct dtype_of<uint8_t> { static constexpr DType value = DType::u8; };
template <> struct dtype_of<bool> { static constexpr DType value = DType::b8; };
template <> struct dtype_of<bfloat16> { static constexpr DType value = DType::bf16; };
// clang-format on
template <class T> struct type_tag { using type = T; };

// The message of kernels that have no bfloat16 path: the ops layer computes bf16 in float32 before it
// reaches them, so reaching one is a missing conversion, reported instead of computed wrongly.
[[noreturn]] inline void throw_no_bf16_kernel() {
  throw Error("this kernel has no bfloat16 path: cast the tensor to float32 first (tensor.to(kFloat32))");
}

// Calls fn(type_tag<T>{}) with T the C++ type of `t`. bfloat16 is not arithmetic in C++, so it is
// not dispatched here (see dispatch_storage for kernels that only move or convert elements).
template <class F>
decltype(auto) dispatch_all(DType t, F&& fn) {
  switch (t) {  // clang-format off
    case DType::f32: return fn(type_tag<float>{});
    case DType::f64: return fn(type_tag<double>{});
    case DType::i64: return fn(type_tag<int64_t>{});
    case DType::i32: return fn(type_tag<int32_t>{});
    case DType::u8: return fn(type_tag<uint8_t>{});
    case DType::b8: return fn(type_tag<bool>{});
    case DType::bf16: throw_no_bf16_kernel();
  }  // clang-format on
  throw Error("unknown dtype");
}

// Like dispatch_all, bfloat16 included (as the bfloat16 struct): for code that copies elements or
// converts them through float (casts, item, to_vector, printing, gathers).
template <class F>
decltype(auto) dispatch_storage(DType t, F&& fn) {
  if (t == DType::bf16) return fn(type_tag<bfloat16>{});
  return dispatch_all(t, std::forward<F>(fn));
}

// Like dispatch_all, for float32 and float64 only; `op` names the caller in the error.
template <class F>
decltype(auto) dispatch_floating(DType t, const char* op, F&& fn) {
  switch (t) {
    case DType::f32: return fn(type_tag<float>{});
    case DType::f64: return fn(type_tag<double>{});
    default: throw Error(std::string(op) + ": expected a float32 or float64 tensor, got " + dtype_name(t));
  }
}

// Numeric dtypes (no bool).
template <class F>
decltype(auto) dispatch_numeric(DType t, const char* op, F&& fn) {
  switch (t) {
    case DType::f32: return fn(type_tag<float>{});
    case DType::f64: return fn(type_tag<double>{});
    case DType::i64: return fn(type_tag<int64_t>{});
    case DType::i32: return fn(type_tag<int32_t>{});
    case DType::u8: return fn(type_tag<uint8_t>{});
    default: throw Error(std::string(op) + ": expected a numeric tensor, got " + dtype_name(t));
  }
}

}  // namespace strata
