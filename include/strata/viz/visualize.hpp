// Pictures of a run as PNG files: a grid of images (a GAN's samples, TensorLayer's
// tl.visualize.save_images) and training curves drawn by a small line-plot rasteriser, both
// written with the PNG encoder of image_codec.hpp.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "strata/core/tensor.hpp"

namespace strata::viz {

// images [N, H, W, C] (C = 1 or 3) or gray [N, H, W] -> uint8 [rows*H + (rows-1)*padding,
// cols*W + (cols-1)*padding, C], image k at row k / cols, column k % cols, the gaps and empty
// cells black. Values as TensorLayer maps them: uint8 as they are; floats in [0, 1] times 255;
// floats in [-1, 1] (a tanh generator's) as (x + 1) * 127.5; other floats are an error.
// rows = cols = 0 picks the smallest near-square grid; N must fit in rows * cols.
Tensor image_grid(const Tensor& images, int64_t rows = 0, int64_t cols = 0, int64_t padding = 0);
// Writes image_grid(...) as a PNG (or JPEG, by the extension) at `path`.
void save_images(const Tensor& images, const std::string& path, int64_t rows = 0, int64_t cols = 0,
                 int64_t padding = 0);

struct PlotOptions {
  int64_t width = 640;
  int64_t height = 400;
  int64_t margin = 20;  // pixels between the image's edge and the plot's frame
};

// One line per series (a History's values(): one value per epoch), in a fixed palette by the
// series' order (tab10: blue, orange, green, red, purple, ...), on a white background in a black
// frame with three grey grid lines. x spans the longest series; y spans all finite values with 5%
// head room. NaN/inf values break a line. When the margin has room for a line of text (16
// pixels), the top margin names the series in their colours (left) and the y range of the
// values (right), the bottom margin the x range; train::save_history_html draws a chart with
// axes -> uint8 [height, width, 3].
Tensor plot_curves(const std::map<std::string, std::vector<double>>& series, const PlotOptions& options = {});
void save_curves(const std::map<std::string, std::vector<double>>& series, const std::string& path,
                 const PlotOptions& options = {});
// The palette's colour (r, g, b) of the i-th series.
std::vector<uint8_t> curve_color(size_t i);

// A copy of uint8 image [H, W, C] (C = 1 or 3) with the outline of each box drawn `thickness`
// pixels wide inside it (TensorLayer's draw_boxes_and_labels_to_image). boxes
// [K, 4] float (x_min, y_min, x_max, y_max), inclusive pixel coordinates, or fractions of the
// width / height with `normalized`; parts outside the image are clipped. Box k takes the palette
// colour of classes[k] (of k when classes is empty); on a gray image, the colour's luma.
// labels[k], when given (one per box; empty strings draw nothing), is written in a 7 x 14 pixel
// font on a tab of the box's colour above its top-left corner (inside it at the image's top).
Tensor draw_boxes(const Tensor& image, const Tensor& boxes, const std::vector<int64_t>& classes = {},
                  int64_t thickness = 2, bool normalized = false, const std::vector<std::string>& labels = {});

}  // namespace strata::viz
