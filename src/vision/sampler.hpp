// The one sampler behind resize, affine and elastic transforms: each output pixel reads the input
// at a computed (x, y) position, nearest or bilinear, with `fill` outside the input.
#pragma once
#include <cmath>
#include <utility>

#include "image_common.hpp"
#include "strata/vision/image.hpp"
#include "strata/ops/shape.hpp"

namespace strata::vision::detail {

// out[oy, ox] = in sampled at where(ox, oy) = (x, y); neighbours outside the input are `fill`.
template <class T, class Where>
void sample(const T* in, int64_t h, int64_t w, int64_t channels, T* out, int64_t oh, int64_t ow, Where where,
            Interpolation mode, double fill) {
  auto at = [&](int64_t y, int64_t x, int64_t c) {
    return (y < 0 || y >= h || x < 0 || x >= w) ? fill : static_cast<double>(in[(y * w + x) * channels + c]);
  };
  for (int64_t oy = 0; oy < oh; ++oy) {
    for (int64_t ox = 0; ox < ow; ++ox) {
      const auto [x, y] = where(static_cast<double>(ox), static_cast<double>(oy));
      T* dst = out + (oy * ow + ox) * channels;
      if (mode == Interpolation::nearest) {
        const auto nx = static_cast<int64_t>(std::floor(x + 0.5)), ny = static_cast<int64_t>(std::floor(y + 0.5));
        for (int64_t c = 0; c < channels; ++c) dst[c] = detail::store<T>(at(ny, nx, c));
        continue;
      }
      const double fx = std::floor(x), fy = std::floor(y);
      const auto x0 = static_cast<int64_t>(fx), y0 = static_cast<int64_t>(fy);
      const double tx = x - fx, ty = y - fy;
      for (int64_t c = 0; c < channels; ++c) {
        const double top = at(y0, x0, c) * (1 - tx) + (tx > 0 ? at(y0, x0 + 1, c) * tx : 0);
        const double bottom = ty > 0 ? at(y0 + 1, x0, c) * (1 - tx) + (tx > 0 ? at(y0 + 1, x0 + 1, c) * tx : 0) : 0;
        dst[c] = detail::store<T>(top * (1 - ty) + bottom * ty);
      }
    }
  }
}

template <class Where>
Tensor resample(const Tensor& image, int64_t oh, int64_t ow, Where where, Interpolation mode, double fill) {
  const Tensor in = contiguous(image);
  Tensor out = Tensor::empty({oh, ow, in.size(2)}, in.dtype());
  detail::dispatch_image(in.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    sample(in.data<T>(), in.size(0), in.size(1), in.size(2), out.data<T>(), oh, ow, where, mode, fill);
  });
  return out;
}

}  // namespace strata::vision::detail
