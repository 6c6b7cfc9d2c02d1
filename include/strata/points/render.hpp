// Pictures of point clouds: a small software rasteriser that draws each point as a disc, nearest
// in front (a z-buffer), shaded darker with depth, seen from an azimuth and an elevation, and a
// grid of such pictures with captions. Images are uint8 [H, W, 3]; data::write_image saves them
// as PNG.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "strata/core/tensor.hpp"

namespace strata::points {

struct RenderOptions {
  int64_t width = 256;
  int64_t height = 256;
  // The camera turns `azimuth` degrees about the up axis y (0 looks along -z, x to the right),
  // then rises `elevation` degrees (looking down on the cloud).
  double azimuth = 30;
  double elevation = 20;
  // A pinhole camera at 3 cloud radii from the cloud's centre; false: orthographic.
  bool perspective = false;
  double point_radius = 2.0;    // the discs' radius in pixels
  double depth_shading = 0.45;  // the farthest point's colour times 1 - this; the nearest's as it is
  std::array<uint8_t, 3> background{255, 255, 255};
};

// cloud [P, 3 + F] (float; the first three columns are drawn) -> uint8 [height, width, 3]. The
// cloud is centred on its bounding box's centre and scaled so its farthest point from there is
// 5% inside the image's smaller side. Each point's colour comes from `color_by`:
//   undefined: the palette's first colour (blue);
//   integer [P] (labels, e.g. parts): the colour of label k is viz::curve_color(k), tab10;
//   floating [P] (a scalar per point): from dark blue (its minimum) through green to yellow
//   (its maximum), viridis-like.
Tensor render_cloud(const Tensor& cloud, const Tensor& color_by = {}, const RenderOptions& options = {});

// Each cloud rendered with its color_by (an empty vector: none; else one per cloud), in a grid
// of `cols` columns (0: as near square as fits), each picture framed in grey with its caption
// (when captions are given, one per cloud) on a grey tab at its top; empty cells are background.
Tensor render_grid(const std::vector<Tensor>& clouds, const std::vector<Tensor>& color_by = {},
                   const std::vector<std::string>& captions = {}, int64_t cols = 0, const RenderOptions& options = {});

}  // namespace strata::points
