#include "image_tiles.hpp"

#include <algorithm>
#include <cmath>

#include "strata/core/error.hpp"
#include "strata/core/factory.hpp"

namespace strata::data::detail {

Tensor tile_images(const std::vector<uint8_t>& pixels, const Shape& nhwc, int64_t rows, int64_t cols,
                   int64_t padding) {
  const int64_t n = nhwc[0], h = nhwc[1], w = nhwc[2], c = nhwc[3];
  if (rows == 0 && cols == 0) cols = static_cast<int64_t>(std::ceil(std::sqrt(static_cast<double>(n))));
  if (rows == 0) rows = (n + cols - 1) / cols;
  if (cols == 0) cols = (n + rows - 1) / rows;
  STRATA_CHECK(n <= rows * cols, "image_grid: ", n, " images do not fit in a ", rows, " x ", cols, " grid");
  const int64_t gh = rows * h + (rows - 1) * padding, gw = cols * w + (cols - 1) * padding;
  std::vector<uint8_t> grid(static_cast<size_t>(gh * gw * c), 0);
  for (int64_t k = 0; k < n; ++k) {
    const int64_t top = (k / cols) * (h + padding), left = (k % cols) * (w + padding);
    for (int64_t y = 0; y < h; ++y)
      std::copy_n(pixels.begin() + ((k * h + y) * w) * c, w * c, grid.begin() + ((top + y) * gw + left) * c);
  }
  return from_vector(grid, {gh, gw, c});
}

}  // namespace strata::data::detail
