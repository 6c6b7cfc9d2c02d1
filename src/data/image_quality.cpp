// PSNR, SSIM and luma (data/image_quality.hpp).
#include "strata/data/image_quality.hpp"

#include <cmath>
#include <limits>
#include <vector>

#include "strata/core/error.hpp"
#include "strata/core/factory.hpp"
#include "strata/ops/shape.hpp"

namespace strata::data {
namespace {

void check_pair(const Tensor& a, const Tensor& b, double data_range, const char* op) {
  STRATA_CHECK(a.defined() && b.defined(), op, ": expected two defined tensors");
  STRATA_CHECK(a.shape() == b.shape(), op, ": the two images differ in shape: ", a.shape().str(), " vs ", b.shape().str());
  STRATA_CHECK(a.numel() > 0, op, ": expected non-empty images, got shape ", a.shape().str());
  STRATA_CHECK(std::isfinite(data_range) && data_range > 0, op, ": expected a positive data_range, got ", data_range);
}

constexpr int kRadius = 5;  // 11x11 window: scipy's truncate 3.5 at sigma 1.5

// The normalised 1-D Gaussian (sigma 1.5) of 2 * kRadius + 1 taps.
std::vector<double> gaussian() {
  std::vector<double> w;
  double sum = 0;
  for (int i = -kRadius; i <= kRadius; ++i) sum += w.emplace_back(std::exp(-0.5 * i * i / (1.5 * 1.5)));
  for (double& v : w) v /= sum;
  return w;
}

// The Gaussian-weighted mean of f over each window lying inside the h x w plane: (h-10) x (w-10).
std::vector<double> filter_valid(const std::vector<double>& f, int64_t h, int64_t w, const std::vector<double>& g) {
  const int64_t oh = h - 2 * kRadius, ow = w - 2 * kRadius;
  std::vector<double> rows(static_cast<size_t>(h * ow)), out(static_cast<size_t>(oh * ow));
  for (int64_t y = 0; y < h; ++y)
    for (int64_t x = 0; x < ow; ++x) {
      double s = 0;
      for (int j = 0; j <= 2 * kRadius; ++j) s += g[j] * f[y * w + x + j];
      rows[y * ow + x] = s;
    }
  for (int64_t y = 0; y < oh; ++y)
    for (int64_t x = 0; x < ow; ++x) {
      double s = 0;
      for (int j = 0; j <= 2 * kRadius; ++j) s += g[j] * rows[(y + j) * ow + x];
      out[y * ow + x] = s;
    }
  return out;
}

}  // namespace

double psnr(const Tensor& image, const Tensor& reference, double data_range) {
  check_pair(image, reference, data_range, "psnr");
  const std::vector<double> a = contiguous(image).to_vector<double>(), b = contiguous(reference).to_vector<double>();
  double se = 0;
  for (size_t i = 0; i < a.size(); ++i) se += (a[i] - b[i]) * (a[i] - b[i]);
  if (se == 0) return std::numeric_limits<double>::infinity();
  return 10 * std::log10(data_range * data_range / (se / static_cast<double>(a.size())));
}

double ssim(const Tensor& image, const Tensor& reference, double data_range) {
  check_pair(image, reference, data_range, "ssim");
  STRATA_CHECK(image.dim() == 3 && image.size(0) >= 2 * kRadius + 1 && image.size(1) >= 2 * kRadius + 1,
               "ssim: expected HWC images of at least 11x11, got shape ", image.shape().str());
  const int64_t h = image.size(0), w = image.size(1), c = image.size(2);
  const std::vector<double> a = contiguous(image).to_vector<double>(), b = contiguous(reference).to_vector<double>();
  const std::vector<double> g = gaussian();
  const double c1 = (0.01 * data_range) * (0.01 * data_range), c2 = (0.03 * data_range) * (0.03 * data_range);
  double total = 0;
  for (int64_t k = 0; k < c; ++k) {
    std::vector<double> x(static_cast<size_t>(h * w)), y(x.size()), xx(x.size()), yy(x.size()), xy(x.size());
    for (int64_t i = 0; i < h * w; ++i) {
      x[i] = a[i * c + k];
      y[i] = b[i * c + k];
      xx[i] = x[i] * x[i];
      yy[i] = y[i] * y[i];
      xy[i] = x[i] * y[i];
    }
    const auto ux = filter_valid(x, h, w, g), uy = filter_valid(y, h, w, g), uxx = filter_valid(xx, h, w, g),
               uyy = filter_valid(yy, h, w, g), uxy = filter_valid(xy, h, w, g);
    double sum = 0;
    for (size_t i = 0; i < ux.size(); ++i) {
      const double vx = uxx[i] - ux[i] * ux[i], vy = uyy[i] - uy[i] * uy[i], vxy = uxy[i] - ux[i] * uy[i];
      sum += (2 * ux[i] * uy[i] + c1) * (2 * vxy + c2) / ((ux[i] * ux[i] + uy[i] * uy[i] + c1) * (vx + vy + c2));
    }
    total += sum / static_cast<double>(ux.size());
  }
  return total / static_cast<double>(c);
}

Tensor rgb_to_luma(const Tensor& rgb) {
  STRATA_CHECK(rgb.defined() && (rgb.dim() == 3 || rgb.dim() == 4) && rgb.size(-1) == 3,
               "rgb_to_luma: expected an HWC or NHWC image with 3 channels, got ",
               rgb.defined() ? rgb.shape().str() : std::string("an undefined tensor"));
  const std::vector<double> v = contiguous(rgb).to_vector<double>();
  Shape shape = rgb.shape();
  shape[shape.size() - 1] = 1;
  std::vector<double> y(v.size() / 3);
  for (size_t i = 0; i < y.size(); ++i) y[i] = 16 + (65.481 * v[3 * i] + 128.553 * v[3 * i + 1] + 24.966 * v[3 * i + 2]) / 255;
  return from_vector(y, shape);
}

}  // namespace strata::data
