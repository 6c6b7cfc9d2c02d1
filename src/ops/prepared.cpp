// Prepared ops (strata/ops/prepared.hpp): the shape checks of the eager ops, done once, then the
// backend's prepared kernel (strata/dispatch/prepared.hpp).
#include "strata/ops/prepared.hpp"

#include "ops/op_geometry.hpp"
#include "strata/dispatch/prepared.hpp"

namespace strata::ops {
namespace {

using dispatch::FusedActivation;

FusedActivation fused(const std::string& name, const char* op) {
  if (name.empty()) return FusedActivation::none;
  if (name == "relu") return FusedActivation::relu;
  if (name == "tanh") return FusedActivation::tanh;
  if (name == "sigmoid") return FusedActivation::sigmoid;
  throw Error(std::string(op) + ": activation '" + name + "' cannot run inside the kernel (relu, tanh or sigmoid)");
}

void check_float32(const Tensor& w, const Tensor& b, const char* op) {
  STRATA_CHECK(w.defined() && w.dtype() == kFloat32, op, ": float32 weights only, got ",
               w.defined() ? dtype_name(w.dtype()) : "an undefined tensor");
  STRATA_CHECK(!b.defined() || b.dtype() == kFloat32, op, ": float32 bias only, got ", dtype_name(b.dtype()));
}

}  // namespace

bool fusable_activation(const std::string& name) {
  return name.empty() || name == "relu" || name == "tanh" || name == "sigmoid";
}

PreparedOp::PreparedOp(std::unique_ptr<dispatch::PreparedKernel> kernel, Shape input, Shape output)
    : kernel_(std::move(kernel)), input_(std::move(input)), output_(std::move(output)) {}
PreparedOp::PreparedOp(PreparedOp&&) noexcept = default;
PreparedOp& PreparedOp::operator=(PreparedOp&&) noexcept = default;
PreparedOp::~PreparedOp() = default;

void PreparedOp::run(const Tensor& x, const Tensor& y) const {
  for (const auto& [t, want, what] : {std::tuple{&x, &input_, "input"}, std::tuple{&y, &output_, "output"}})
    STRATA_CHECK(t->shape() == *want && t->dtype() == kFloat32 && t->is_contiguous(), "prepared op: expected a ",
                 "contiguous float32 ", what, " of shape ", want->str(), ", got ", dtype_name(t->dtype()), " ",
                 t->shape().str(), t->is_contiguous() ? "" : " (not contiguous)");
  kernel_->run(x, y);
}

PreparedOp prepare_conv2d(const Shape& x_shape, const Tensor& w, const Tensor& b, const ConvOptions& options,
                          const std::string& activation) {
  const char* op = "prepare_conv2d";
  check_float32(w, b, op);
  const Tensor x = Tensor::empty(x_shape, kFloat32, kMeta);  // the geometry reads only its shape
  const dispatch::ConvGeometry g = conv_geometry(x, w, b, options, 2, op);
  Shape out = g.win.activation_shape(g.win.out, g.out_channels);
  return PreparedOp(dispatch::prepare_conv(w, b, g, fused(activation, op)), x_shape, std::move(out));
}

PreparedOp prepare_pool2d(const Shape& x_shape, const SpatialSizes& kernel, const PoolOptions& options, bool max) {
  const Tensor x = Tensor::empty(x_shape, kFloat32, kMeta);
  const dispatch::PoolGeometry g = pool_geometry(x, kernel, options, 2, max, "prepare_pool2d");
  Shape out = g.win.activation_shape(g.win.out, g.channels);
  return PreparedOp(dispatch::prepare_pool.on(kCPU, g), x_shape, std::move(out));
}

PreparedOp prepare_linear(const Shape& x_shape, const Tensor& w, const Tensor& b, const std::string& activation) {
  const char* op = "prepare_linear";
  check_float32(w, b, op);
  STRATA_CHECK(w.dim() == 2, op, ": expected weights [in, out], got ", w.shape().str());
  STRATA_CHECK(x_shape.size() >= 1 && x_shape.back() == w.size(0), op, ": input ", x_shape.str(),
               " does not end in the weights' ", w.size(0), " input features");
  STRATA_CHECK(!b.defined() || (b.dim() == 1 && b.size(0) == w.size(1)), op, ": expected bias [", w.size(1), "], got ",
               b.shape().str());
  int64_t rows = 1;
  for (int d = 0; d + 1 < x_shape.size(); ++d) rows *= x_shape[d];
  STRATA_CHECK(rows >= 1, op, ": empty input ", x_shape.str());
  Shape out = x_shape;
  out[out.size() - 1] = w.size(1);
  return PreparedOp(dispatch::prepare_linear(w, b, rows, fused(activation, op)), x_shape, std::move(out));
}

}  // namespace strata::ops
