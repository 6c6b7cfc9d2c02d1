#include "strata/serve/datatype.hpp"

#include <array>
#include <utility>

namespace strata::serve {
namespace {

constexpr std::array<std::pair<DType, std::string_view>, 6> kDatatypes{{
    {DType::f32, "FP32"}, {DType::f64, "FP64"}, {DType::i64, "INT64"},
    {DType::i32, "INT32"}, {DType::u8, "UINT8"}, {DType::b8, "BOOL"},
}};

}  // namespace

const char* datatype_name(DType dtype) {
  for (const auto& [d, name] : kDatatypes)
    if (d == dtype) return name.data();
  throw Error(std::string("no inference-protocol datatype for dtype ") + dtype_name(dtype));
}

std::optional<DType> dtype_of_datatype(std::string_view name) {
  for (const auto& [d, n] : kDatatypes)
    if (n == name) return d;
  return std::nullopt;
}

}  // namespace strata::serve
