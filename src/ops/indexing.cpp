// Indexing ops: indices are validated here, before the kernels run, so that a bad index throws
// strata::Error with the op, the index and the shape instead of reading out of bounds.
#include "strata/ops/indexing.hpp"

#include <algorithm>

#include "ops/index_maps.hpp"
#include "ops/op_common.hpp"
#include "strata/dispatch/elementwise.hpp"
#include "strata/dispatch/index.hpp"
#include "strata/ops/combine.hpp"
#include "strata/ops/elementwise.hpp"
#include "strata/ops/shape.hpp"

namespace strata {
namespace {

using dispatch::AxisMaps;
using ops::Grads;
using ops::Op;

// The values of an int64 index tensor on the host, where they are checked (so that no kernel
// throws from inside a parallel loop) and turned into axis maps.
std::vector<int64_t> values_of(const Tensor& idx) { return idx.to_vector<int64_t>(); }

// An integer index tensor as a contiguous int64 one whose values all lie in [0, size).
Tensor checked_index(const Tensor& index, int64_t size, const char* op, int axis, const Shape& shape) {
  ops::check_defined(index, op, "index");
  STRATA_CHECK(is_index_dtype(index.dtype()), op, ": expected an int64 (or int32) index tensor, got ",
               dtype_name(index.dtype()), " (index shape ", index.shape().str(), ")");
  if (index.numel() == 0) return Tensor::empty(index.shape(), kInt64, index.device());
  Tensor idx = index.dtype() == kInt64 && index.is_contiguous() ? index : dispatch::cast(index, kInt64);
  for (int64_t i : values_of(idx))
    STRATA_CHECK(i >= 0 && i < size, op, ": index ", i, " is out of range for axis ", axis, " of size ", size,
                 " (input shape ", shape.str(), ")");
  return idx;
}

// The sizes of index must not exceed those of `other` (along every axis but `axis` unless
// `all_axes`); gather and scatter_add both rest on this.
void check_index_fits(const Tensor& index, const Tensor& other, int axis, bool all_axes, const char* op,
                      const char* other_name) {
  STRATA_CHECK(index.dim() == other.dim(), op, ": index has ", index.dim(), " dimensions, ", other_name, " has ",
               other.dim(), " (index shape ", index.shape().str(), ", ", other_name, " shape ",
               other.shape().str(), ")");
  for (int d = 0; d < index.dim(); ++d)
    STRATA_CHECK((d == axis && !all_axes) || index.shape()[d] <= other.shape()[d], op, ": index shape ",
                 index.shape().str(), " is larger than ", other_name, " shape ", other.shape().str(),
                 " along axis ", d);
}

void check_mask(const Tensor& mask, const char* op) {
  ops::check_defined(mask, op, "mask");
  STRATA_CHECK(mask.dtype() == kBool, op, ": expected a bool mask, got ", dtype_name(mask.dtype()));
}

}  // namespace

Tensor index_select(const Tensor& x, int64_t axis, const Tensor& index) {
  ops::check_defined(x, "index_select");
  STRATA_CHECK(x.dim() > 0, "index_select: expected a tensor with at least one dimension, got a scalar");
  const int ax = normalize_axis(axis, x.dim(), "index_select");
  ops::check_defined(index, "index_select", "index");
  STRATA_CHECK(index.dim() <= 1, "index_select: expected a 1-D index, got shape ", index.shape().str());
  Tensor idx = checked_index(index, x.shape()[ax], "index_select", ax, x.shape());
  Shape shape = x.shape();
  shape[ax] = idx.numel();
  AxisMaps maps(x.dim());
  maps[ax] = values_of(idx);
  return ops::take(Op::index_select, x, shape, maps);
}

Tensor gather(const Tensor& x, int64_t axis, const Tensor& index) {
  ops::check_defined(x, "gather");
  ops::check_defined(index, "gather", "index");
  const int ax = normalize_axis(axis, x.dim(), "gather");
  check_index_fits(index, x, ax, false, "gather", "input");
  Tensor idx = checked_index(index, x.dim() ? x.shape()[ax] : 1, "gather", ax, x.shape());
  Tensor y = dispatch::gather_along(x, ax, idx);
  if (autograd::needs_grad({&x}))
    ops::record(Op::gather, {x}, {y}, [idx, ax, xshape = x.shape()](const Grads& g) {
      return Grads{scatter_add(zeros(xshape, g[0].options()), ax, idx, g[0])};
    });
  return y;
}

Tensor scatter_add(const Tensor& x, int64_t axis, const Tensor& index, const Tensor& src) {
  ops::check_defined(x, "scatter_add");
  ops::check_defined(index, "scatter_add", "index");
  ops::check_defined(src, "scatter_add", "src");
  STRATA_CHECK(x.dtype() == src.dtype(), "scatter_add: src has dtype ", dtype_name(src.dtype()), ", input has ",
               dtype_name(x.dtype()));
  const int ax = normalize_axis(axis, x.dim(), "scatter_add");
  check_index_fits(index, x, ax, false, "scatter_add", "input");
  check_index_fits(index, src, ax, true, "scatter_add", "src");
  Tensor idx = checked_index(index, x.dim() ? x.shape()[ax] : 1, "scatter_add", ax, x.shape());
  Tensor y = x.numel() > 0 ? dispatch::contiguous_copy(x) : Tensor::empty(x.shape(), x.dtype(), x.device());
  dispatch::scatter_add_along(y, ax, idx, src);
  if (autograd::needs_grad({&x, &src}))
    ops::record(Op::scatter_add, {x, src}, {y},
                [idx, ax, x_grad = x.requires_grad(), src_grad = src.requires_grad(), src_shape = src.shape()](
                    const Grads& g) {
      Tensor gsrc;
      if (src_grad) {
        gsrc = gather(g[0], ax, idx);
        // Elements of src that no index reaches get no gradient: pad with zeros up to src's shape.
        if (gsrc.shape() != src_shape) {
          std::vector<std::pair<int64_t, int64_t>> pads;
          for (int d = 0; d < src_shape.size(); ++d) pads.push_back({0, src_shape[d] - gsrc.shape()[d]});
          gsrc = pad(gsrc, pads);
        }
      }
      return Grads{x_grad ? g[0] : Tensor(), gsrc};
    });
  return y;
}

Tensor masked_select(const Tensor& x, const Tensor& mask) {
  ops::check_defined(x, "masked_select");
  check_mask(mask, "masked_select");
  Shape shape = broadcast_shapes(x.shape(), mask.shape(), "masked_select");
  Tensor m = mask.shape() == shape ? mask : broadcast_to(mask, shape);
  std::vector<int64_t> positions = dispatch::true_positions(m);
  Tensor xb = x.shape() == shape ? x : broadcast_to(x, shape);
  // A plain index_select of the flattened input, so that its gradient rule serves here too.
  return index_select(reshape(xb, {-1}), 0, from_vector(positions, {static_cast<int64_t>(positions.size())}, x.device()));
}

Tensor masked_fill(const Tensor& x, const Tensor& mask, double value) {
  ops::check_defined(x, "masked_fill");
  check_mask(mask, "masked_fill");
  STRATA_CHECK(broadcast_shapes(x.shape(), mask.shape(), "masked_fill") == x.shape(), "masked_fill: mask shape ",
               mask.shape().str(), " does not broadcast to input shape ", x.shape().str());
  return where(mask, scalar_tensor(value, x.options()), x);
}

Tensor one_hot(const Tensor& ids, int64_t depth, DType dtype) {
  ops::check_defined(ids, "one_hot", "ids");
  STRATA_CHECK(is_index_dtype(ids.dtype()) || ids.dtype() == kUInt8,
               "one_hot: expected integer ids (int64, int32 or uint8), got ", dtype_name(ids.dtype()));
  std::vector<int64_t> v = ids.to_vector<int64_t>();
  if (depth < 0) {
    STRATA_CHECK(depth == -1, "one_hot: depth must be positive or -1 (inferred), got ", depth);
    depth = v.empty() ? 0 : *std::max_element(v.begin(), v.end()) + 1;
  }
  for (int64_t id : v)
    STRATA_CHECK(id >= 0 && id < depth, "one_hot: id ", id, " is out of range for depth ", depth, " (ids shape ",
                 ids.shape().str(), ")");
  return dispatch::one_hot(dispatch::cast(ids, kInt64), depth, dtype);  // cast: a contiguous copy
}

Tensor embedding(const Tensor& weight, const Tensor& ids) {
  ops::check_defined(weight, "embedding", "weight");
  ops::check_defined(ids, "embedding", "ids");
  STRATA_CHECK(weight.dim() == 2, "embedding: expected a 2-D weight [rows, features], got shape ",
               weight.shape().str());
  Tensor idx = checked_index(ids, weight.shape()[0], "embedding", 0, weight.shape());
  const int64_t n = idx.numel(), d = weight.shape()[1];
  AxisMaps maps{values_of(idx), {}};
  Shape out_shape = ids.shape();
  out_shape.push_back(d);
  Tensor rows = n > 0 ? dispatch::take_axes(weight, {n, d}, maps) : Tensor::empty({0, d}, weight.dtype(), weight.device());
  Tensor y = rows.as_strided(out_shape, contiguous_strides(out_shape), rows.offset());
  if (autograd::needs_grad({&weight}))
    ops::record(Op::embedding, {weight}, {y}, [maps, n, d, wshape = weight.shape()](const Grads& g) {
      if (n == 0) return Grads{zeros(wshape, g[0].options())};
      return Grads{ops::put_add(Op::embedding, reshape(g[0], {n, d}), maps, wshape)};
    });
  return y;
}

}  // namespace strata
