#include "strata/nn/layers/conv.hpp"

#include "strata/nn/option_table.hpp"

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

SubpixelConv::SubpixelConv(std::string kind, int rank, Options options, std::string name)
    : Layer(std::move(kind), std::move(name)), rank_(rank), options_(std::move(options)) {
  check_options(options_, *this);
}

SubpixelConv::SubpixelConv(std::string kind, int rank, int64_t scale, Activation act, std::string name)
    : SubpixelConv(std::move(kind), rank, Options{.scale = scale, .act = std::move(act)}, std::move(name)) {}

Tensor SubpixelConv::forward(const Tensor& x) {
  const int64_t scale = options_.scale, block = rank_ == 1 ? scale : scale * scale;
  expect(x.dim() == rank_ + 2 && x.shape().back() % block == 0,
         std::string("expected input ") + (rank_ == 1 ? "[N, W, C]" : "[N, H, W, C]") + " with C divisible by " +
             std::to_string(block) + ", got " + x.shape().str());
  return options_.act(depth_to_space(x, scale));
}

STRATA_DEFINE_OPTIONS(SubpixelConvOptions, STRATA_SUBPIXEL_CONV_OPTIONS)
STRATA_LAYER("subpixelconv1d", SubpixelConv1d);
STRATA_LAYER("subpixelconv2d", SubpixelConv2d);

}  // namespace strata::nn
