// Int8Layer (nn/int8.hpp): the part Int8Dense and Int8Conv2d share. The computation is ops'
// prepared int8 ops (ops/prepared.hpp -> dispatch -> kernels/cpu), one per input shape.
#include "strata/nn/int8.hpp"
#include "strata/nn/option_table.hpp"

#include "int8_plans.hpp"

namespace strata::nn {

Int8Layer::Int8Layer(std::string kind, std::string name) : Layer(std::move(kind), std::move(name)) {}
Int8Layer::Int8Layer(Int8Layer&&) noexcept = default;
Int8Layer::~Int8Layer() = default;

void Int8Layer::repack() { plans_.reset(); }

void Int8Layer::add_int8_weights(const Shape& w_shape, bool use_bias) {
  const int64_t out = w_shape.back();
  W = add_weight("W", w_shape, zeros_init(), false);
  w_scale = add_weight("w_scale", {out}, ones_init(), false);
  if (use_bias) b = add_weight("b", {out}, zeros_init(), false);
}

Tensor Int8Layer::run_int8(const Tensor& x, const Shape& out_shape, double scale, int64_t zero_point,
                           const Activation& act, const ConvOptions* conv) {
  expect(x.device().type == DeviceType::CPU, "runs on the CPU only");
  if (x.numel() == 0) return Tensor::empty(out_shape);
  const bool fuse_relu = act.name() == "relu";
  if (!plans_) plans_ = std::make_unique<detail::Int8Plans>();
  const ops::PreparedOp* op = plans_->find(x.shape());
  if (!op) {
    const std::string fused = fuse_relu ? "relu" : "";
    try {
      op = &plans_->add(conv ? ops::prepare_int8_conv2d(x.shape(), W, w_scale, b, *conv, scale, zero_point, fused)
                             : ops::prepare_int8_linear(x.shape(), W, w_scale, b, scale, zero_point, fused));
    } catch (const Error& e) {
      throw Error(owner_text(*this) + ": " + e.what());  // which layer's weights are wrong
    }
  }
  Tensor y = Tensor::empty(op->output_shape());
  if (y.numel() == 0) return y;
  op->run(x.contiguous(), y);
  return fuse_relu ? y : act(y);
}

}  // namespace strata::nn
