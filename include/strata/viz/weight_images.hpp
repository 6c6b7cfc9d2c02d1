// A layer's weights as pictures (TensorLayer's tl.visualize.CNN2d and draw_weights): each
// convolution filter, or each unit's incoming weights, as a small image in a grid, every image
// stretched from its own minimum (black) to its own maximum (white), as matplotlib's imshow
// shows an array by default.
//
//   viz::save_filter_grid(conv.weight(), "conv1.png");            // W [kh, kw, in, out], in = 1 or 3
//   viz::save_weight_images(dense.weight(), {28, 28}, "w1.png");   // W [784, units]: a 28 x 28 image a unit
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "strata/core/tensor.hpp"

namespace strata::viz {

// W [kh, kw, in, out] (Strata's and TensorFlow's layout) with in = 1 (gray) or 3 (RGB) ->
// image_grid of the out filters, each [kh, kw, in] stretched to [0, 1] by its own min and max
// (a constant filter is mid-grey), near-square, `padding` black pixels apart. For another number
// of input channels, pick some: W.narrow(2, c, 1).
Tensor filter_grid(const Tensor& weight, int64_t padding = 1);
void save_filter_grid(const Tensor& weight, const std::string& path, int64_t padding = 1);

// W [n_in, units] -> image_grid of the units' columns (TensorLayer's draw_weights), each
// reshaped to `shape` ({height, width}, height · width = n_in) and stretched by its own min and
// max; at most max_units of them, the first ones.
Tensor weight_images(const Tensor& weight, const std::vector<int64_t>& shape, int64_t max_units = 400,
                     int64_t padding = 1);
void save_weight_images(const Tensor& weight, const std::vector<int64_t>& shape, const std::string& path,
                        int64_t max_units = 400, int64_t padding = 1);

}  // namespace strata::viz
