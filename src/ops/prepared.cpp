// Prepared ops (strata/ops/prepared.hpp): the shape checks of the eager ops, done once, then the
// backend's prepared kernel (strata/dispatch/prepared.hpp).
#include "strata/ops/prepared.hpp"

#include <cmath>

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

// The rows of a linear op's input x [..., I] for weights w [I, O] and bias b [O] (or undefined).
int64_t linear_rows(const Shape& x_shape, const Tensor& w, const Tensor& b, const char* op) {
  STRATA_CHECK(w.dim() == 2, op, ": expected weights [in, out], got ", w.shape().str());
  STRATA_CHECK(x_shape.size() >= 1 && x_shape.back() == w.size(0), op, ": input ", x_shape.str(),
               " does not end in the weights' ", w.size(0), " input features");
  STRATA_CHECK(!b.defined() || (b.dim() == 1 && b.size(0) == w.size(1)), op, ": expected bias [", w.size(1), "], got ",
               b.shape().str());
  int64_t rows = 1;
  for (int d = 0; d + 1 < x_shape.size(); ++d) rows *= x_shape[d];
  STRATA_CHECK(rows >= 1, op, ": empty input ", x_shape.str());
  return rows;
}

// The int8 ops' operands, checked (strata/ops/prepared.hpp) before the kernel rounds them; w's
// and b's shapes are checked already.
dispatch::Int8Input int8_input(const Tensor& w, const Tensor& w_scale, const Tensor& b, double input_scale,
                               int64_t input_zero_point, const std::string& activation, const char* op) {
  const int64_t out = w.size(-1);
  STRATA_CHECK(w_scale.defined() && w_scale.dtype() == kFloat32 && w_scale.dim() == 1 && w_scale.numel() == out, op,
               ": expected w_scale float32 [", out, "], got ",
               w_scale.defined() ? dtype_name(w_scale.dtype()) + (" " + w_scale.shape().str()) : "an undefined tensor");
  STRATA_CHECK(std::isfinite(input_scale) && input_scale > 0, op, ": input_scale must be finite and > 0, got ",
               input_scale);
  STRATA_CHECK(input_zero_point >= 0 && input_zero_point <= 255, op, ": input_zero_point must be in [0, 255], got ",
               input_zero_point);
  STRATA_CHECK(activation.empty() || activation == "relu", op, ": activation '", activation,
               "' cannot run inside the int8 kernel (relu or none)");
  const std::vector<float> values = w.contiguous().to_vector<float>();
  for (size_t i = 0; i < values.size(); ++i)
    STRATA_CHECK(std::isfinite(values[i]), op, ": W[", i, "] is ", values[i], "; int8 weights must be finite");
  const std::vector<float> steps = w_scale.contiguous().to_vector<float>();
  const std::vector<float> bias = b.defined() ? b.contiguous().to_vector<float>() : std::vector<float>();
  for (size_t o = 0; o < steps.size(); ++o) {
    const double step = input_scale * steps[o];
    STRATA_CHECK(std::isfinite(steps[o]) && steps[o] > 0 && std::isfinite(step) && step > 0, op, ": w_scale[", o,
                 "] is ", steps[o], "; the per-channel steps must be finite and > 0");
    // The kernel adds b[o] / step to the int32 accumulator (oneDNN's order).
    STRATA_CHECK(bias.empty() || std::isfinite(bias[o] / static_cast<float>(step)), op, ": b[", o, "] is ", bias[o],
                 "; it must be finite (and finite once divided by its channel's step)");
  }
  return {input_scale, static_cast<int32_t>(input_zero_point)};
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
  const int64_t rows = linear_rows(x_shape, w, b, op);
  Shape out = x_shape;
  out[out.size() - 1] = w.size(1);
  return PreparedOp(dispatch::prepare_linear(w, b, rows, fused(activation, op)), x_shape, std::move(out));
}

PreparedOp prepare_int8_conv2d(const Shape& x_shape, const Tensor& w, const Tensor& w_scale, const Tensor& b,
                               const ConvOptions& options, double input_scale, int64_t input_zero_point,
                               const std::string& activation) {
  const char* op = "prepare_int8_conv2d";
  STRATA_CHECK(options.groups == 1, op, ": groups 1 only, got ", options.groups);
  check_float32(w, b, op);
  const Tensor x = Tensor::empty(x_shape, kFloat32, kMeta);
  const dispatch::ConvGeometry g = conv_geometry(x, w, b, options, 2, op);
  const dispatch::Int8Input in = int8_input(w, w_scale, b, input_scale, input_zero_point, activation, op);
  Shape out = g.win.activation_shape(g.win.out, g.out_channels);
  return PreparedOp(dispatch::prepare_int8_conv(w, w_scale, b, g, in, fused(activation, op)), x_shape, std::move(out));
}

PreparedOp prepare_int8_linear(const Shape& x_shape, const Tensor& w, const Tensor& w_scale, const Tensor& b,
                               double input_scale, int64_t input_zero_point, const std::string& activation) {
  const char* op = "prepare_int8_linear";
  check_float32(w, b, op);
  const int64_t rows = linear_rows(x_shape, w, b, op);
  const dispatch::Int8Input in = int8_input(w, w_scale, b, input_scale, input_zero_point, activation, op);
  Shape out = x_shape;
  out[out.size() - 1] = w.size(1);
  return PreparedOp(dispatch::prepare_int8_linear(w, w_scale, b, rows, in, fused(activation, op)), x_shape,
                    std::move(out));
}

}  // namespace strata::ops
