// Bicubic resizing as Pillow's Image.resize(..., BICUBIC) and Matlab's imresize compute it: a
// separable convolution with Keys' cubic (a = -0.5), widened by the scale factor when shrinking
// (so that downscaling averages instead of aliasing), weights normalised per output pixel, and
// the taps that fall outside the image dropped. Rows first, then columns.
#include <cmath>
#include <vector>

#include "image_common.hpp"
#include "strata/vision/image.hpp"
#include "strata/ops/shape.hpp"

namespace strata::vision {
namespace {

double cubic(double x) {
  constexpr double a = -0.5;
  x = std::abs(x);
  if (x < 1) return ((a + 2) * x - (a + 3)) * x * x + 1;
  if (x < 2) return (((x - 5) * x + 8) * x - 4) * a;
  return 0;
}

// For each output index along one axis: the first input index and the normalised weights.
struct Taps {
  std::vector<int64_t> first;
  std::vector<std::vector<double>> weights;
};

Taps taps(int64_t in, int64_t out) {
  const double scale = static_cast<double>(in) / static_cast<double>(out);
  const double stretch = std::max(scale, 1.0), support = 2.0 * stretch;
  Taps t;
  for (int64_t i = 0; i < out; ++i) {
    const double centre = (static_cast<double>(i) + 0.5) * scale;
    // Pillow's bounds, truncation included, so that the same taps are used.
    const int64_t lo = std::max<int64_t>(static_cast<int64_t>(centre - support + 0.5), 0);
    const int64_t hi = std::min<int64_t>(static_cast<int64_t>(centre + support + 0.5), in);
    std::vector<double> w;
    double sum = 0;
    for (int64_t x = lo; x < hi; ++x) sum += w.emplace_back(cubic((static_cast<double>(x) - centre + 0.5) / stretch));
    for (double& v : w) v /= sum;
    t.first.push_back(lo);
    t.weights.push_back(std::move(w));
  }
  return t;
}

}  // namespace

Tensor resize_bicubic(const Tensor& image, int64_t height, int64_t width) {
  if (detail::is_batch(image))
    return detail::per_image(image, "resize_bicubic", [&](const Tensor& one) { return resize_bicubic(one, height, width); });
  detail::check_image(image, "resize_bicubic");
  STRATA_CHECK(height >= 1 && width >= 1, "resize_bicubic: expected a positive size, got ", height, "x", width);
  STRATA_CHECK(image.size(0) >= 1 && image.size(1) >= 1, "resize_bicubic: cannot resize an empty image of shape ",
               image.shape().str());
  const int64_t ih = image.size(0), iw = image.size(1), c = image.size(2);
  const Taps rows = taps(iw, width), cols = taps(ih, height);
  const std::vector<double> in = contiguous(image).to_vector<double>();
  // Horizontal pass: [ih, width, c], kept in double (Pillow rounds uint8 here; we round once).
  std::vector<double> mid(static_cast<size_t>(ih * width * c));
  for (int64_t y = 0; y < ih; ++y)
    for (int64_t x = 0; x < width; ++x)
      for (int64_t k = 0; k < c; ++k) {
        double s = 0;
        const auto& w = rows.weights[x];
        for (size_t j = 0; j < w.size(); ++j) s += w[j] * in[(y * iw + rows.first[x] + static_cast<int64_t>(j)) * c + k];
        mid[(y * width + x) * c + k] = s;
      }
  Tensor out = Tensor::empty({height, width, c}, image.dtype());
  detail::dispatch_image(out.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* dst = out.data<T>();
    for (int64_t y = 0; y < height; ++y)
      for (int64_t x = 0; x < width; ++x)
        for (int64_t k = 0; k < c; ++k) {
          double s = 0;
          const auto& w = cols.weights[y];
          for (size_t j = 0; j < w.size(); ++j) s += w[j] * mid[((cols.first[y] + static_cast<int64_t>(j)) * width + x) * c + k];
          dst[(y * width + x) * c + k] = detail::store<T>(s);
        }
  });
  return out;
}

}  // namespace strata::vision
