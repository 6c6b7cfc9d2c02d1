// The meta backend: shape-only kernels. Each makes its results on the meta device (a shape and a
// dtype, no bytes) and computes nothing, so a static model learns every shape without running
// the network. Families that need data (statistics, index checks, masks, backward passes,
// optimizer and skip-gram steps) are not registered: calling them on meta tensors raises NoDataError, which
// static models catch to probe that layer with real zeros instead.
#include <algorithm>

#include "strata/dispatch/stubs.hpp"

namespace strata::kernels::meta {
namespace {

using dispatch::AxisMaps;
using dispatch::BinaryOp;
using dispatch::ConvGeometry;
using dispatch::GruCellOut;
using dispatch::LayerNormOut;
using dispatch::LstmCellOut;
using dispatch::PointwiseLoss;
using dispatch::PoolGeometry;
using dispatch::PoolWorkspace;
using dispatch::ReduceOp;
using dispatch::UnaryOp;
using dispatch::binary_name;
using dispatch::check_copy_shape;
using dispatch::check_inplace;
using dispatch::is_comparison;
using dispatch::reduced_dtype;
using dispatch::reduced_shape;

Tensor make(const Shape& shape, DType dtype) { return Tensor::empty(shape, dtype, kMeta); }

// An in-place write lands on meta targets only: a real tensor cannot take a meta tensor's values.
void expect_meta_target(const char* op, const Tensor& target) {
  if (!target.is_meta())
    throw NoDataError(std::string(op) + ": cannot write a meta tensor's values into a " + target.device().str() +
                      " tensor (meta tensors have no data)");
}

Tensor unary(UnaryOp op, const Tensor& x, double, double) {
  return make(x.shape(), dispatch::unary_result_dtype(op, x.dtype()));
}
Tensor binary(BinaryOp op, const Tensor& a, const Tensor& b) {
  const Shape shape = a.shape() == b.shape() ? a.shape() : broadcast_shapes(a.shape(), b.shape(), binary_name(op));
  return make(shape, is_comparison(op) ? kBool : promote(a.dtype(), b.dtype()));
}
void binary_inplace(BinaryOp op, Tensor& a, const Tensor& b) {
  check_inplace(op, a.shape(), b.shape());
  expect_meta_target(binary_name(op), a);
}
void add_scaled_inplace(Tensor& a, const Tensor& b, double) {
  check_inplace(BinaryOp::add, a.shape(), b.shape());
  expect_meta_target("add_", a);
}
Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b) {
  return make(broadcast_shapes(broadcast_shapes(cond.shape(), a.shape(), "where"), b.shape(), "where"),
              promote(a.dtype(), b.dtype()));
}
void copy_into(Tensor& dst, const Tensor& src) {
  check_copy_shape(dst.shape(), src.shape());
  expect_meta_target("copy", dst);
}
Tensor contiguous_copy(const Tensor& x) { return make(x.shape(), x.dtype()); }
Tensor cast(const Tensor& x, DType dtype) { return make(x.shape(), dtype); }
void fill(Tensor& t, double) { expect_meta_target("fill", t); }

Tensor reduce(ReduceOp op, const Tensor& x, const std::vector<bool>& mask, bool keepdim) {
  return make(reduced_shape(x.shape(), mask, keepdim), reduced_dtype(op, x.dtype()));
}
Tensor arg_reduce(bool, const Tensor& x, int axis, bool keepdim) {
  std::vector<bool> mask(x.dim(), false);
  mask[axis] = true;
  return make(reduced_shape(x.shape(), mask, keepdim), kInt64);
}

Tensor matmul3d(const Tensor& a, const Tensor& b, const Tensor&) {
  return make({std::max(a.shape()[0], b.shape()[0]), a.shape()[1], b.shape()[2]}, a.dtype());
}

Tensor conv_forward(const Tensor& x, const Tensor&, const Tensor&, const ConvGeometry& g) {
  return make(g.win.activation_shape(g.win.out, g.out_channels), x.dtype());
}
Tensor conv_backward_data(const Tensor& dy, const Tensor&, const ConvGeometry& g) {
  return make(g.win.activation_shape(g.win.in, g.in_channels), dy.dtype());
}
std::pair<Tensor, Tensor> conv_backward_weights(const Tensor& x, const Tensor&, const ConvGeometry& g, bool with_bias) {
  return {make(g.weights_shape(), x.dtype()), with_bias ? make({g.out_channels}, x.dtype()) : Tensor()};
}

Tensor pool_forward(const Tensor& x, const PoolGeometry& g, std::shared_ptr<PoolWorkspace>* workspace) {
  if (workspace) workspace->reset();
  return make(g.win.activation_shape(g.win.out, g.channels), x.dtype());
}
Tensor pool_backward(const Tensor& dy, const Tensor&, const PoolGeometry& g, const std::shared_ptr<PoolWorkspace>&) {
  return make(g.win.activation_shape(g.win.in, g.channels), dy.dtype());
}

Tensor softmax_forward(const Tensor& x, int, bool) { return make(x.shape(), x.dtype()); }
Tensor softmax_backward(const Tensor&, const Tensor& y, int, bool) { return make(y.shape(), y.dtype()); }

Tensor batch_norm_apply(const Tensor& x, const std::vector<double>&, const std::vector<double>&, const Tensor&,
                        const Tensor&) {
  return make(x.shape(), x.dtype());
}
LayerNormOut layer_norm_forward(const Tensor& x, int64_t n, const Tensor&, const Tensor&, double) {
  const Shape rows{n == 0 ? 0 : x.numel() / n};
  return {make(x.shape(), x.dtype()), make(rows, x.dtype()), make(rows, x.dtype())};
}

Tensor take_axes(const Tensor& x, const Shape& shape, const AxisMaps&) {
  return make(x.dim() == 0 ? x.shape() : shape, x.dtype());
}
void write_slab(Tensor& y, int, int64_t, const Tensor&) { expect_meta_target("write_slab", y); }
Tensor put_add_axes(const Tensor& g, const AxisMaps&, const Shape& shape) { return make(shape, g.dtype()); }
Tensor gather_along(const Tensor& x, int, const Tensor& index) { return make(index.shape(), x.dtype()); }
std::pair<Tensor, Tensor> sort_along(const Tensor& x, int axis, int64_t k, bool) {
  Shape shape = x.shape();
  if (x.dim() > 0) shape[axis] = k;
  return {make(shape, x.dtype()), make(shape, kInt64)};
}

// Per-row losses have one value per row of classes; reduced losses are 0-d.
Shape loss_shape(const Tensor& x, bool reduced, bool per_row) {
  if (reduced) return {};
  if (!per_row) return x.shape();
  const int64_t C = x.dim() == 0 ? 1 : x.shape().back();
  return {C == 0 ? 0 : x.numel() / C};
}
Tensor pointwise_loss(PointwiseLoss, const Tensor& x, const Tensor&, bool reduced, double, double) {
  return make(loss_shape(x, reduced, false), x.dtype());
}
Tensor cross_entropy_forward(const Tensor& logits, const Tensor&, bool reduced, double, Tensor& lse) {
  lse = make(loss_shape(logits, false, true), logits.dtype());
  return make(loss_shape(logits, reduced, true), logits.dtype());
}
Tensor nll_forward(const Tensor& log_probs, const Tensor&, bool reduced, double) {
  return make(loss_shape(log_probs, reduced, true), log_probs.dtype());
}

Tensor dropout_apply(const Tensor& x, double, uint64_t) { return make(x.shape(), x.dtype()); }

LstmCellOut lstm_cell_forward(const Tensor&, const Tensor&, const Tensor& c) {
  const int64_t B = c.shape()[0], H = c.shape()[1];
  return {make({B, H}, c.dtype()), make({B, H}, c.dtype()), make({B, 5 * H}, c.dtype())};
}
GruCellOut gru_cell_forward(const Tensor&, const Tensor&, const Tensor& h) {
  const int64_t B = h.shape()[0], H = h.shape()[1];
  return {make({B, H}, h.dtype()), make({B, 3 * H}, h.dtype())};
}

// Point-cloud searches: indices into the points, one row per cloud or query.
Tensor farthest_point_sample(const Tensor& points, int64_t m) { return make({points.shape()[0], m}, kInt64); }
Tensor knn(const Tensor& queries, const Tensor&, int64_t k) {
  return make({queries.shape()[0], queries.shape()[1], k}, kInt64);
}
Tensor ball_query(const Tensor& queries, const Tensor&, double, int64_t samples) {
  return make({queries.shape()[0], queries.shape()[1], samples}, kInt64);
}
// scatter_max's rows per cell: [count, C]. Voxelisation's size depends on the values (none here).
Tensor scatter_max_rows(const Tensor& src, const Tensor&, int64_t count) {
  return make({count, src.shape()[1]}, kInt64);
}

[[maybe_unused]] const bool registered = [] {
#define STRATA_REGISTER_META(name) dispatch::name.set(DeviceType::Meta, &meta::name);
  STRATA_REGISTER_META(unary) STRATA_REGISTER_META(binary) STRATA_REGISTER_META(binary_inplace)
  STRATA_REGISTER_META(add_scaled_inplace) STRATA_REGISTER_META(where) STRATA_REGISTER_META(copy_into)
  STRATA_REGISTER_META(contiguous_copy) STRATA_REGISTER_META(cast) STRATA_REGISTER_META(fill)
  STRATA_REGISTER_META(reduce) STRATA_REGISTER_META(arg_reduce) STRATA_REGISTER_META(matmul3d)
  STRATA_REGISTER_META(conv_forward) STRATA_REGISTER_META(conv_backward_data)
  STRATA_REGISTER_META(conv_backward_weights) STRATA_REGISTER_META(pool_forward) STRATA_REGISTER_META(pool_backward)
  STRATA_REGISTER_META(softmax_forward) STRATA_REGISTER_META(softmax_backward)
  STRATA_REGISTER_META(batch_norm_apply) STRATA_REGISTER_META(layer_norm_forward) STRATA_REGISTER_META(take_axes)
  STRATA_REGISTER_META(write_slab) STRATA_REGISTER_META(put_add_axes) STRATA_REGISTER_META(gather_along)
  STRATA_REGISTER_META(sort_along) STRATA_REGISTER_META(pointwise_loss)
  STRATA_REGISTER_META(cross_entropy_forward) STRATA_REGISTER_META(nll_forward) STRATA_REGISTER_META(dropout_apply)
  STRATA_REGISTER_META(lstm_cell_forward) STRATA_REGISTER_META(gru_cell_forward)
  STRATA_REGISTER_META(farthest_point_sample) STRATA_REGISTER_META(knn) STRATA_REGISTER_META(ball_query)
#undef STRATA_REGISTER_META
  return true;
}();
// Apart from the list above: a line added inside it makes clang-format reflow the whole list.
[[maybe_unused]] const bool registered_scatter = [] {
  dispatch::scatter_max_rows.set(DeviceType::Meta, &meta::scatter_max_rows);
  return true;
}();

}  // namespace
}  // namespace strata::kernels::meta
