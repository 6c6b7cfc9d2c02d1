#include "strata/nn/layers/pool.hpp"

#include "strata/nn/option_table.hpp"

#include <limits>

#include "strata/ops/combine.hpp"
#include "strata/ops/elementwise.hpp"
#include "strata/ops/pool.hpp"
#include "strata/ops/shape.hpp"

namespace strata::nn {

Tensor corner_pool2d(const Tensor& x, Corner corner) {
  STRATA_CHECK(x.dim() == 4, "corner_pool2d: expected x [N, H, W, C], got ", x.shape().str());
  const int64_t h = x.size(1), w = x.size(2);
  STRATA_CHECK(h > 0 && w > 0, "corner_pool2d: expected a non-empty image, got ", x.shape().str());
  const double lowest = -std::numeric_limits<double>::infinity();
  // A running maximum towards an edge is a max pool whose window reaches that edge: pad the
  // far side with -inf by (size - 1) and slide a window of the whole axis.
  auto towards = [&](int64_t axis, bool forward_edge) {
    const int64_t n = x.size(axis);
    std::vector<std::pair<int64_t, int64_t>> pads(3, {0, 0});
    pads[axis - 1] = forward_edge ? std::pair<int64_t, int64_t>{0, n - 1} : std::pair<int64_t, int64_t>{n - 1, 0};
    SpatialSizes kernel = axis == 1 ? SpatialSizes{n, 1} : SpatialSizes{1, n};
    return max_pool2d(pad(x, pads, PadMode::constant, lowest), kernel, PoolOptions{.stride = {1}});
  };
  const bool down = corner == Corner::top_left || corner == Corner::top_right;
  const bool right = corner == Corner::top_left || corner == Corner::bottom_left;
  return towards(1, down) + towards(2, right);
}

CornerPool2d::CornerPool2d(Options options, std::string name)
    : Layer("cornerpool2d", std::move(name)), options_(std::move(options)) {
  check_options(options_, *this);
}

CornerPool2d::CornerPool2d(Corner corner, std::string name) : CornerPool2d(Options{.mode = corner}, std::move(name)) {}

static Corner corner_from(const std::string& mode) {
  if (mode == "TopLeft") return Corner::top_left;
  if (mode == "TopRight") return Corner::top_right;
  if (mode == "BottomLeft") return Corner::bottom_left;
  if (mode == "BottomRight") return Corner::bottom_right;
  throw Error("CornerPool2d: mode must be TopLeft, TopRight, BottomLeft or BottomRight, got '" + mode + "'");
}

CornerPool2d::CornerPool2d(const std::string& mode, std::string name)
    : CornerPool2d(corner_from(mode), std::move(name)) {}

Tensor CornerPool2d::forward(const Tensor& x) {
  expect(x.dim() == 4, "expects input [N, H, W, C], got " + x.shape().str());
  return corner_pool2d(x, options_.mode);
}

STRATA_ENUM_OPTION(Corner, {Corner::top_left, "TopLeft"}, {Corner::top_right, "TopRight"},
                   {Corner::bottom_left, "BottomLeft"}, {Corner::bottom_right, "BottomRight"});
STRATA_DEFINE_OPTIONS(CornerPool2dOptions, STRATA_CORNER_POOL2D_OPTIONS)
STRATA_LAYER("cornerpool2d", CornerPool2d);

}  // namespace strata::nn
