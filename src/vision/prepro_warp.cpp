// Swirl and the projective warp by point pairs (scikit-image's transform.swirl and
// ProjectiveTransform + warp, which TensorLayer's swirl and projective_transform_by_points call),
// bilinear with a constant fill, clipped to the input's range as scikit-image's clip=True does.
#include <algorithm>
#include <cmath>
#include <functional>
#include <numbers>

#include "data/symmetric_eigen.hpp"
#include "sampler.hpp"
#include "strata/core/error.hpp"
#include "strata/vision/prepro.hpp"

namespace strata::vision {

namespace {

// Source (x, y) = (column, row) of output pixel (x, y).
using InverseMap = std::function<std::array<double, 2>(double x, double y)>;

// scipy's map_coordinates(order=1, mode="grid-constant") through data's sampler: the four
// neighbours of (x, y), those outside the image reading `fill`; every channel of an HWC image is
// resampled at the same place. Then the values are clipped to the input's range, widened to take
// in `fill` where the output reaches it (skimage's _clip_warp_output).
Tensor warp_bilinear(const Tensor& image, const InverseMap& inverse, double fill, const char* op) {
  STRATA_CHECK(image.defined() && (image.dim() == 2 || image.dim() == 3) && image.numel() > 0, op,
               ": expected a non-empty 2-D or HWC image, got ",
               image.defined() ? image.shape().str() : std::string("undefined"));
  const DType t = image.dtype();
  STRATA_CHECK(t == kUInt8 || t == kFloat32 || t == kFloat64, op, ": expected a uint8, float32 or float64 image, got ",
               dtype_name(t));
  const int64_t rows = image.size(0), cols = image.size(1);
  const Tensor hwc = image.dim() == 2 ? image.reshape({rows, cols, 1}) : image;
  const Tensor warped = detail::resample(
      hwc, rows, cols,
      [&](double x, double y) {
        const auto [sx, sy] = inverse(x, y);
        // NaN or far away (a homography near its horizon): every neighbour outside, so `fill`.
        return std::abs(sx) < 1e15 && std::abs(sy) < 1e15 ? std::pair{sx, sy} : std::pair{-2.0, -2.0};
      },
      Interpolation::bilinear, fill);
  const std::vector<double> in = image.to_vector<double>();
  std::vector<double> out = warped.to_vector<double>();
  double lo = *std::min_element(in.begin(), in.end()), hi = *std::max_element(in.begin(), in.end());
  const auto [out_lo, out_hi] = std::minmax_element(out.begin(), out.end());
  if (!(lo <= fill && fill <= hi) && *out_lo <= fill && fill <= *out_hi)
    lo = std::min(lo, fill), hi = std::max(hi, fill);
  for (double& v : out) v = std::clamp(v, lo, hi);
  return from_vector(out, image.shape()).to(t);
}

// skimage's _center_and_normalize_points: centroid to the origin, RMS distance to sqrt(2).
// Returns the 3 x 3 matrix (row-major) and fills `normalized`.
std::array<double, 9> normalize_points(const std::vector<ProjectivePoint>& p,
                                       std::vector<ProjectivePoint>& normalized) {
  double cx = 0, cy = 0, ss = 0;
  for (const auto& q : p) cx += q[0], cy += q[1];
  cx /= double(p.size()), cy /= double(p.size());
  for (const auto& q : p) ss += (q[0] - cx) * (q[0] - cx) + (q[1] - cy) * (q[1] - cy);
  const double rms = std::sqrt(ss / double(p.size()));
  STRATA_CHECK(rms > 0, "estimate_projective: the points all coincide; a projective map needs 4 in general position");
  const double s = std::sqrt(2.0) / rms;
  normalized.clear();
  for (const auto& q : p) normalized.push_back({s * (q[0] - cx), s * (q[1] - cy)});
  return {s, 0, -s * cx, 0, s, -s * cy, 0, 0, 1};
}

std::array<double, 9> multiply3(const std::array<double, 9>& a, const std::array<double, 9>& b) {
  std::array<double, 9> m{};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 3; ++k) m[3 * i + j] += a[3 * i + k] * b[3 * k + j];
  return m;
}

}  // namespace

std::array<double, 9> estimate_projective(const std::vector<ProjectivePoint>& src,
                                          const std::vector<ProjectivePoint>& dst) {
  STRATA_CHECK(src.size() == dst.size() && src.size() >= 4 && src.size() <= 4096,
               "estimate_projective: expected as many source as destination points, between 4 and 4096, got ",
               src.size(), " and ", dst.size());
  std::vector<ProjectivePoint> s, d;
  const auto src_matrix = normalize_points(src, s), dst_matrix = normalize_points(dst, d);
  // The direct linear transform: each pair gives two rows of A h = 0; h is A's right singular
  // vector of the smallest singular value, i.e. the eigenvector of A^T A of the smallest eigenvalue.
  std::vector<double> ata(81, 0.0);
  for (size_t i = 0; i < s.size(); ++i) {
    const auto [x, y] = s[i];
    const std::array<double, 9> rx{x, y, 1, 0, 0, 0, -d[i][0] * x, -d[i][0] * y, d[i][0]};
    const std::array<double, 9> ry{0, 0, 0, x, y, 1, -d[i][1] * x, -d[i][1] * y, d[i][1]};
    for (int a = 0; a < 9; ++a)
      for (int b = 0; b < 9; ++b) ata[size_t(9 * a + b)] += rx[a] * rx[b] + ry[a] * ry[b];
  }
  const auto eigen = data::detail::symmetric_eigen(ata, 9);
  const size_t k = size_t(std::min_element(eigen.values.begin(), eigen.values.end()) - eigen.values.begin());
  std::array<double, 9> v{};
  for (int i = 0; i < 9; ++i) v[i] = eigen.vectors[size_t(9 * i) + k];
  STRATA_CHECK(std::abs(v[8]) > 1e-8, "estimate_projective: the points are degenerate (three or more on one line?)");
  std::array<double, 9> h{};
  for (int i = 0; i < 8; ++i) h[i] = -v[i] / v[8];
  h[8] = 1;
  const double si = 1 / dst_matrix[0];
  const std::array<double, 9> dst_inverse{si, 0, -dst_matrix[2] * si, 0, si, -dst_matrix[5] * si, 0, 0, 1};
  h = multiply3(multiply3(dst_inverse, h), src_matrix);
  for (int i = 0; i < 9; ++i) h[i] /= h[8] == 0 ? 1 : h[8];
  return h;
}

Tensor projective_transform_by_points(const Tensor& image, const std::vector<ProjectivePoint>& src,
                                      const std::vector<ProjectivePoint>& dst, double fill) {
  const std::array<double, 9> m = estimate_projective(dst, src);  // output (dst) -> input (src)
  return warp_bilinear(
      image,
      [&](double x, double y) -> std::array<double, 2> {
        const double z = m[6] * x + m[7] * y + m[8];
        return {(m[0] * x + m[1] * y + m[2]) / z, (m[3] * x + m[4] * y + m[5]) / z};
      },
      fill, "projective_transform_by_points");
}

Tensor swirl(const Tensor& image, const SwirlOptions& options, double fill) {
  STRATA_CHECK(options.radius != 0 && std::isfinite(options.radius), "swirl: expected a nonzero radius, got ",
               options.radius);
  STRATA_CHECK(image.defined() && image.dim() >= 2, "swirl: expected a 2-D or HWC image, got ",
               image.defined() ? image.shape().str() : std::string("undefined"));
  const double x0 = options.center ? (*options.center)[0] : double(image.size(1)) / 2;
  const double y0 = options.center ? (*options.center)[1] : double(image.size(0)) / 2;
  const double rotation = std::numbers::pi / 180 * options.rotation_degrees;
  const double radius = options.radius / 5 * std::log(2.0);  // decays to ~1/1000 at `radius`
  return warp_bilinear(
      image,
      [&](double x, double y) -> std::array<double, 2> {
        const double rho = std::sqrt((x - x0) * (x - x0) + (y - y0) * (y - y0));
        const double theta = rotation + options.strength * std::exp(-rho / radius) + std::atan2(y - y0, x - x0);
        return {x0 + rho * std::cos(theta), y0 + rho * std::sin(theta)};
      },
      fill, "swirl");
}

}  // namespace strata::vision
