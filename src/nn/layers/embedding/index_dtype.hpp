// The element types the embedding family takes as ids and labels.
#pragma once
#include "strata/core/dtype.hpp"

namespace strata::nn {

inline bool is_index(DType t) { return t == kInt64 || t == kInt32; }

}  // namespace strata::nn
