#include "strata/nn/subpixel.hpp"

#include "strata/nn/layer_config.hpp"

#include "strata/ops/shape.hpp"

namespace strata::nn {

Tensor depth_to_space(const Tensor& x, int64_t scale) {
  const int64_t rank = x.dim() - 2;
  const int64_t block = rank == 1 ? scale : scale * scale;
  STRATA_CHECK((rank == 1 || rank == 2) && scale > 0 && x.shape().back() % block == 0,
               "depth_to_space: expected [N, W, C] or [N, H, W, C] with C divisible by ", std::to_string(block),
               " (scale ", std::to_string(scale), "), got ", x.shape().str());
  const Shape& s = x.shape();
  const int64_t c = s.back() / block;
  // 1-D: [N, W, s, C'] is already [N, W*s, C'] in memory.
  if (rank == 1) return reshape(x, {s[0], s[1] * scale, c});
  Tensor t = reshape(x, {s[0], s[1], s[2], scale, scale, c});  // [N, H, W, i, j, C']
  return reshape(permute(t, {0, 1, 3, 2, 4, 5}), {s[0], s[1] * scale, s[2] * scale, c});
}

SubpixelConv::SubpixelConv(std::string kind, int rank, int64_t scale, Activation act, std::string name)
    : Layer(std::move(kind), std::move(name)), rank_(rank), scale_(scale), act_(std::move(act)) {
  expect(scale > 0, "scale must be positive, got " + std::to_string(scale));
}

Tensor SubpixelConv::forward(const Tensor& x) {
  int64_t block = rank_ == 1 ? scale_ : scale_ * scale_;
  expect(x.dim() == rank_ + 2 && x.shape().back() % block == 0,
         std::string("expected input ") + (rank_ == 1 ? "[N, W, C]" : "[N, H, W, C]") + " with C divisible by " +
             std::to_string(block) + ", got " + x.shape().str());
  return act_(depth_to_space(x, scale_));
}

void SubpixelConv::get_config(nlohmann::json& c) const {
  c = {{"scale", scale_}, {"act", activation_name(act_, *this)}};
}

STRATA_LAYER_CLASS("subpixelconv1d", [](const nlohmann::json& c, const std::string& name) {
  return std::make_shared<SubpixelConv1d>(c.at("scale").get<int64_t>(), Activation(c.at("act").get<std::string>()), name);
});
STRATA_LAYER_CLASS("subpixelconv2d", [](const nlohmann::json& c, const std::string& name) {
  return std::make_shared<SubpixelConv2d>(c.at("scale").get<int64_t>(), Activation(c.at("act").get<std::string>()), name);
});

}  // namespace strata::nn
