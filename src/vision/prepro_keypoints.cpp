// TensorLayer's key-point tools for pose data: the left/right flip that swaps joints
// (keypoint_random_flip) and the shortest-edge resize with padding
// (keypoint_random_resize_shortestedge), with OpenCV's INTER_AREA resampling, which they use.
#include <algorithm>
#include <cmath>
#include <random>

#include "strata/core/error.hpp"
#include "strata/vision/image.hpp"
#include "strata/vision/prepro.hpp"

namespace strata::vision {

namespace {

constexpr double kMissing = -1000;  // TensorLayer's mark for a joint that is not in the picture

// One axis of OpenCV's INTER_AREA as (source index, weight) lists per output index.
using AreaTaps = std::vector<std::vector<std::pair<int64_t, double>>>;

// Shrinking (scale = src / dst >= 1): each output cell averages the source pixels it covers,
// by covered fraction, dropping slivers under 1e-3 (computeResizeAreaTab).
AreaTaps area_taps(int64_t src, int64_t dst) {
  const double scale = double(src) / double(dst);
  AreaTaps taps(static_cast<size_t>(dst));
  for (int64_t d = 0; d < dst; ++d) {
    const double f1 = double(d) * scale, f2 = f1 + scale, cell = std::min(scale, double(src) - f1);
    int64_t s2 = std::min(int64_t(std::floor(f2)), src - 1);
    const int64_t s1 = std::min(int64_t(std::ceil(f1)), s2);
    auto& t = taps[size_t(d)];
    if (double(s1) - f1 > 1e-3) t.push_back({s1 - 1, (double(s1) - f1) / cell});
    for (int64_t s = s1; s < s2; ++s) t.push_back({s, 1 / cell});
    if (f2 - double(s2) > 1e-3) t.push_back({s2, std::min(std::min(f2 - double(s2), 1.0), cell) / cell});
  }
  return taps;
}

// Enlarging on either axis: OpenCV's linear interpolation with INTER_AREA's own offsets, which
// keep each source pixel whole until the output cell reaches the next one.
AreaTaps area_linear_taps(int64_t src, int64_t dst) {
  const double scale = double(src) / double(dst), inv = double(dst) / double(src);
  AreaTaps taps(static_cast<size_t>(dst));
  for (int64_t d = 0; d < dst; ++d) {
    int64_t s = int64_t(std::floor(double(d) * scale));
    double f = double(d + 1) - double(s + 1) * inv;
    f = f <= 0 ? 0 : f - std::floor(f);
    if (s < 0) f = 0, s = 0;
    if (s >= src - 1) f = 0, s = src - 1;
    taps[size_t(d)] = {{s, 1 - f}, {std::min(s + 1, src - 1), f}};
  }
  return taps;
}

std::vector<double> apply_taps(const std::vector<double>& in, int64_t rows, int64_t cols, int64_t channels,
                               const AreaTaps& row_taps, const AreaTaps& col_taps) {
  const int64_t out_rows = int64_t(row_taps.size()), out_cols = int64_t(col_taps.size());
  std::vector<double> tmp(size_t(rows * out_cols * channels), 0.0), out(size_t(out_rows * out_cols * channels), 0.0);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < out_cols; ++c)
      for (const auto& [s, w] : col_taps[size_t(c)])
        for (int64_t k = 0; k < channels; ++k)
          tmp[size_t((r * out_cols + c) * channels + k)] += w * in[size_t((r * cols + s) * channels + k)];
  for (int64_t r = 0; r < out_rows; ++r)
    for (const auto& [s, w] : row_taps[size_t(r)])
      for (int64_t c = 0; c < out_cols * channels; ++c)
        out[size_t(r * out_cols * channels + c)] += w * tmp[size_t(s * out_cols * channels + c)];
  return out;
}

void check_keypoint_image(const KeypointImage& in, const char* op) {
  STRATA_CHECK(in.image.defined() && (in.image.dim() == 2 || in.image.dim() == 3) && in.image.numel() > 0, op,
               ": expected a non-empty 2-D or HWC image, got ",
               in.image.defined() ? in.image.shape().str() : std::string("undefined"));
  STRATA_CHECK(!in.mask.defined() ||
                   (in.mask.dim() >= 2 && in.mask.size(0) == in.image.size(0) && in.mask.size(1) == in.image.size(1)),
               op, ": expected a mask of the image's height and width ", in.image.shape().str(), ", got ",
               in.mask.shape().str());
}

// HWC view of a 2-D image (one channel).
Tensor as_hwc(const Tensor& t) { return t.dim() == 2 ? t.reshape({t.size(0), t.size(1), 1}) : t; }

}  // namespace

Tensor resize_area(const Tensor& image, int64_t height, int64_t width) {
  STRATA_CHECK(image.defined() && (image.dim() == 2 || image.dim() == 3) && image.numel() > 0,
               "resize_area: expected a non-empty 2-D or HWC image, got ",
               image.defined() ? image.shape().str() : std::string("undefined"));
  STRATA_CHECK(height > 0 && width > 0 && height <= 65536 && width <= 65536,
               "resize_area: expected an output size in [1, 65536], got ", height, " x ", width);
  const int64_t rows = image.size(0), cols = image.size(1), channels = image.dim() == 3 ? image.size(2) : 1;
  const bool shrink = rows >= height && cols >= width;
  const AreaTaps rt = shrink ? area_taps(rows, height) : area_linear_taps(rows, height);
  const AreaTaps ct = shrink ? area_taps(cols, width) : area_linear_taps(cols, width);
  std::vector<double> out = apply_taps(image.to_vector<double>(), rows, cols, channels, rt, ct);
  if (image.dtype() == kUInt8)
    for (double& v : out) v = std::clamp(std::nearbyint(v), 0.0, 255.0);
  Shape shape = image.shape();
  shape[0] = height, shape[1] = width;
  return from_vector(out, shape).to(image.dtype());
}

KeypointImage keypoint_flip(const KeypointImage& in, const std::vector<int64_t>& flip_list) {
  check_keypoint_image(in, "keypoint_flip");
  const int64_t rows = in.image.size(0), width = in.image.size(1);
  KeypointImage out;
  out.image = flip_left_right(as_hwc(in.image)).reshape(in.image.shape());
  if (in.mask.defined()) out.mask = flip_left_right(as_hwc(in.mask)).reshape(in.mask.shape());
  for (size_t p = 0; p < in.people.size(); ++p) {
    const auto& joints = in.people[p];
    auto& moved = out.people.emplace_back();
    for (int64_t k : flip_list) {
      STRATA_CHECK(k >= 0 && k < int64_t(joints.size()), "keypoint_flip: flip_list names joint ", k, " but person ", p,
                   " has ", joints.size(), " joints");
      const auto [x, y] = joints[size_t(k)];
      // TensorLayer's rules: joints off the picture, or that would land at x > width - 1 after
      // the flip (x' = width - x, not width - 1 - x), become missing.
      const bool off =
          x < 0 || y < 0 || x > double(width - 1) || y > double(rows - 1) || double(width) - x > double(width - 1);
      moved.push_back(off ? KeypointXY{kMissing, kMissing} : KeypointXY{double(width) - x, y});
    }
  }
  return out;
}

KeypointImage keypoint_random_flip(const KeypointImage& in, double prob, const std::vector<int64_t>& flip_list,
                                   Generator& gen) {
  const double draw = std::uniform_real_distribution<double>(0, 1)(gen.engine());
  return draw < prob ? in : keypoint_flip(in, flip_list);
}

KeypointImage keypoint_resize_shortestedge(const KeypointImage& in, int64_t min_height, int64_t min_width, double zoom,
                                           const std::vector<double>& pad_value) {
  check_keypoint_image(in, "keypoint_resize_shortestedge");
  STRATA_CHECK(min_height > 0 && min_width > 0 && min_height <= 65536 && min_width <= 65536 && zoom > 0 && zoom <= 64,
               "keypoint_resize_shortestedge: expected a minimum size in [1, 65536] and zoom in (0, 64], got ",
               min_height, " x ", min_width, " and ", zoom);
  // A grey image becomes RGB first (cv2.COLOR_GRAY2RGB), as in TensorLayer.
  Tensor image = as_hwc(in.image);
  if (image.size(2) == 1) image = image.expand({image.size(0), image.size(1), 3}).contiguous();
  const int64_t height = image.size(0), width = image.size(1), channels = image.size(2);
  STRATA_CHECK(pad_value.empty() || int64_t(pad_value.size()) == channels, "keypoint_resize_shortestedge: expected ",
               channels, " pad values (one per channel), got ", pad_value.size());
  const double ratio = std::min(double(min_width) / double(width), double(min_height) / double(height));
  int64_t target = int64_t(std::min(double(width) * ratio + 0.5, double(height) * ratio + 0.5));
  target = int64_t(double(target) * zoom);
  STRATA_CHECK(target > 0, "keypoint_resize_shortestedge: the zoomed short edge is 0 pixels (zoom ", zoom, ")");
  const double scale = double(target) / double(std::min(height, width));
  const int64_t new_h = height < width ? target : int64_t(scale * double(height) + 0.5);
  const int64_t new_w = height < width ? int64_t(scale * double(width) + 0.5) : target;
  Tensor resized = resize_area(image, new_h, new_w);
  Tensor mask = in.mask.defined() ? resize_area(in.mask, new_h, new_w) : Tensor();
  int64_t pw = 0, ph = 0;
  if (new_w < min_width || new_h < min_height) {
    // cv2.copyMakeBorder: the odd pixel goes to the bottom and the right; the mask pads with 1
    // (cv2's scalar 1: channel 0 gets 1, the others 0).
    pw = std::max<int64_t>(0, (min_width - new_w) / 2), ph = std::max<int64_t>(0, (min_height - new_h) / 2);
    const int64_t out_h = new_h + 2 * ph + std::max<int64_t>(0, (min_height - new_h) % 2);
    const int64_t out_w = new_w + 2 * pw + std::max<int64_t>(0, (min_width - new_w) % 2);
    auto pad = [&](const Tensor& t, const std::vector<double>& value) {
      const int64_t c = t.dim() == 3 ? t.size(2) : 1;
      const std::vector<double> v = t.to_vector<double>();
      std::vector<double> o(size_t(out_h * out_w * c));
      for (int64_t r = 0; r < out_h; ++r)
        for (int64_t q = 0; q < out_w; ++q)
          for (int64_t k = 0; k < c; ++k) {
            const int64_t sr = r - ph, sq = q - pw;
            const bool inside = sr >= 0 && sr < new_h && sq >= 0 && sq < new_w;
            o[size_t((r * out_w + q) * c + k)] = inside                     ? v[size_t((sr * new_w + sq) * c + k)]
                                                 : size_t(k) < value.size() ? value[size_t(k)]
                                                                            : 0;
          }
      Shape shape = t.shape();
      shape[0] = out_h, shape[1] = out_w;
      return from_vector(o, shape).to(t.dtype());
    };
    resized = pad(resized, pad_value);
    if (mask.defined()) mask = pad(mask, {1.0});
  }
  KeypointImage out{resized, mask, {}};
  for (const auto& joints : in.people) {
    auto& moved = out.people.emplace_back();
    for (const auto& [x, y] : joints) {
      const bool missing = x < -100 || y < -100;
      moved.push_back(
          missing ? KeypointXY{kMissing, kMissing}
                  : KeypointXY{std::trunc(x * scale + 0.5) + double(pw), std::trunc(y * scale + 0.5) + double(ph)});
    }
  }
  return out;
}

}  // namespace strata::vision
