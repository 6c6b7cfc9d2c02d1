// Tiling a batch of images into one grid image: the one copy of the layout shared by
// viz::image_grid (TensorLayer's pixel mapping) and train::image_grid (TensorBoard's).
#pragma once
#include <cstdint>
#include <vector>

#include "strata/core/tensor.hpp"

namespace strata::data::detail {

// pixels: uint8 NHWC, contiguous, of shape `nhwc` -> uint8 [rows*H + (rows-1)*padding,
// cols*W + (cols-1)*padding, C], image k at row k / cols, column k % cols, the gaps and empty
// cells 0. rows = cols = 0 picks the smallest near-square grid (ceil(sqrt(N)) columns); one of
// them 0 is computed from the other. Errors name image_grid: N must fit in rows * cols.
Tensor tile_images(const std::vector<uint8_t>& pixels, const Shape& nhwc, int64_t rows, int64_t cols,
                   int64_t padding);

}  // namespace strata::data::detail
