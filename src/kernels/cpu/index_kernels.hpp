// CPU kernels that move elements by index (strata/dispatch/index.hpp documents them).
#pragma once
#include <cstdint>
#include <utility>
#include <vector>

#include "strata/dispatch/index.hpp"

namespace strata::kernels::cpu {

using dispatch::AxisMaps;

Tensor take_axes(const Tensor& x, const Shape& shape, const AxisMaps& maps);
void write_slab(Tensor& y, int axis, int64_t at, const Tensor& x);
Tensor put_add_axes(const Tensor& g, const AxisMaps& maps, const Shape& shape);
Tensor gather_along(const Tensor& x, int axis, const Tensor& index);
void scatter_add_along(Tensor& out, int axis, const Tensor& index, const Tensor& src);
std::pair<Tensor, Tensor> sort_along(const Tensor& x, int axis, int64_t k, bool descending);
std::vector<int64_t> true_positions(const Tensor& mask);
Tensor one_hot(const Tensor& ids, int64_t depth, DType dtype);

}  // namespace strata::kernels::cpu
