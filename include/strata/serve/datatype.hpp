// The Open Inference Protocol's tensor datatypes ("FP32", "INT64", ...) and Strata's dtypes.
#pragma once
#include <optional>
#include <string_view>

#include "strata/core/dtype.hpp"

namespace strata::serve {

// The protocol's name of a dtype: FP32, FP64, INT64, INT32, UINT8, BOOL.
const char* datatype_name(DType dtype);
// The dtype of a protocol datatype name; nothing for names Strata has no dtype for (FP16, BYTES...).
std::optional<DType> dtype_of_datatype(std::string_view name);

}  // namespace strata::serve
