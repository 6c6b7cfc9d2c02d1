// Sorting along one axis and picking the k largest (or smallest) elements. Sorting is stable;
// NaN ranks above every number. Gradients flow to the positions the values came from.
#pragma once
#include "strata/core/tensor.hpp"

namespace strata {

struct ValuesAndIndices {
  Tensor values;
  Tensor indices;  // int64: where each value sits in the input along the axis
};

ValuesAndIndices sort(const Tensor& x, int64_t axis = -1, bool descending = false);
Tensor argsort(const Tensor& x, int64_t axis = -1, bool descending = false);  // sort(...).indices
// The k largest (largest = false: smallest) elements along `axis`, best first. With
// sorted = false the order is unspecified (currently the sorted one).
ValuesAndIndices topk(const Tensor& x, int64_t k, int64_t axis = -1, bool largest = true, bool sorted = true);

}  // namespace strata
