// Masks drawn over images for segmentation_unet.cpp's picture: each pixel of class c > 0 blended
// half-way with the c-th colour of viz::curve_color's palette (organ blue, small organ orange,
// lesion green), background left as it is; small images are enlarged (nearest pixel) so the
// lesions stay visible.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

#include <strata/strata.hpp>
#include <strata/viz/visualize.hpp>

// images float [N, H, W, C] in [0, 1] (C = 1 or 3), masks int64 [N, H, W] or undefined (the
// images alone) -> uint8 [N, H * k, W * k, 3] with k = max(1, 128 / W).
inline strata::Tensor overlay_masks(const strata::Tensor& images, const strata::Tensor& masks) {
  using namespace strata;
  const int64_t n = images.size(0), h = images.size(1), w = images.size(2), ch = images.size(3);
  const int64_t k = std::max<int64_t>(1, 128 / w);
  const std::vector<float> pixels = images.contiguous().to_vector<float>();
  const std::vector<int64_t> ids = masks.defined() ? masks.contiguous().to_vector<int64_t>() : std::vector<int64_t>{};
  std::vector<uint8_t> out(static_cast<size_t>(n * h * k * w * k * 3));
  for (int64_t i = 0; i < n; ++i)
    for (int64_t y = 0; y < h * k; ++y)
      for (int64_t x = 0; x < w * k; ++x) {
        const int64_t src = (i * h + y / k) * w + x / k;
        const int64_t cls = ids.empty() ? 0 : ids[src];
        const std::vector<uint8_t> colour = cls > 0 ? viz::curve_color(cls - 1) : std::vector<uint8_t>{};
        for (int64_t c = 0; c < 3; ++c) {
          double v = 255.0 * std::clamp(pixels[src * ch + (ch == 3 ? c : 0)], 0.0f, 1.0f);
          if (cls > 0) v = 0.5 * v + 0.5 * colour[c];
          out[((i * h * k + y) * w * k + x) * 3 + c] = static_cast<uint8_t>(v + 0.5);
        }
      }
  return from_vector(out, Shape{n, h * k, w * k, 3});
}
