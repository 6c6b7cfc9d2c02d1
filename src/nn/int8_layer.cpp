// Int8Layer (nn/int8.hpp): the part Int8Dense and Int8Conv2d share.
#include "strata/nn/int8.hpp"
#include "strata/nn/option_table.hpp"

#include "int8_kernels.hpp"

namespace strata::nn {

Int8Layer::Int8Layer(std::string kind, std::string name) : Layer(std::move(kind), std::move(name)) {}
Int8Layer::Int8Layer(Int8Layer&&) noexcept = default;
Int8Layer::~Int8Layer() = default;

void Int8Layer::repack() { kernel_.reset(); }

void Int8Layer::add_int8_weights(const Shape& w_shape, bool use_bias) {
  const int64_t out = w_shape.back();
  W = add_weight("W", w_shape, zeros_init(), false);
  w_scale = add_weight("w_scale", {out}, ones_init(), false);
  if (use_bias) b = add_weight("b", {out}, zeros_init(), false);
}

Tensor Int8Layer::run_int8(const Tensor& x, int64_t rows, const Shape& out_shape, double scale, int64_t zero_point,
                           const Activation& act, const detail::Int8ConvGeometry* geometry) {
  expect(x.device().type == DeviceType::CPU, "runs on the CPU only");
  const bool fuse_relu = act.name() == "relu";
  const int64_t in = W.size(-2), out = W.size(-1);
  if (!kernel_)
    kernel_ =
        std::make_unique<detail::Int8Kernel>(detail::pack_int8_weights(W, w_scale, b, out, scale, owner_text(*this)),
                                             in, out, static_cast<int32_t>(zero_point), fuse_relu, geometry != nullptr);
  Tensor y = Tensor::empty(out_shape);
  if (x.numel() == 0 || y.numel() == 0) return y;
  const Tensor xc = x.contiguous();
  quantized_.resize(xc.numel());
  detail::quantize_u8(xc.data<float>(), xc.numel(), static_cast<float>(scale), static_cast<int32_t>(zero_point),
                      quantized_.data());
  const Shape src = geometry ? x.shape() : Shape{rows, in}, dst = geometry ? out_shape : Shape{rows, out};
  kernel_->run(quantized_.data(), src, y.data<float>(), dst, geometry);
  return fuse_relu ? y : act(y);
}

}  // namespace strata::nn
