#include "strata/core/dtype.hpp"

namespace strata {

size_t itemsize(DType t) {
  switch (t) {
    case DType::f32: return 4;
    case DType::f64: return 8;
    case DType::i64: return 8;
    case DType::i32: return 4;
    case DType::u8: return 1;
    case DType::b8: return 1;
    case DType::bf16:
      return 2;
  }
  return 0;
}

const char* dtype_name(DType t) {
  switch (t) {
    case DType::f32: return "float32";
    case DType::f64: return "float64";
    case DType::i64: return "int64";
    case DType::i32: return "int32";
    case DType::u8: return "uint8";
    case DType::b8: return "bool";
    case DType::bf16:
      return "bfloat16";
  }
  return "?";
}

static int rank(DType t) {
  switch (t) {
    case DType::b8: return 0;
    case DType::u8: return 1;
    case DType::i32: return 2;
    case DType::i64: return 3;
    case DType::bf16:
      return 4;  // below float32: bf16 with float32 computes in float32, as PyTorch does
    case DType::f32:
      return 5;
    case DType::f64:
      return 6;
  }
  return 0;
}

DType promote(DType a, DType b) { return rank(a) >= rank(b) ? a : b; }

}  // namespace strata
