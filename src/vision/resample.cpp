// Resampling: resize and affine transforms (the sampler is in sampler.hpp).
#include <cmath>
#include <numbers>

#include "image_common.hpp"
#include "sampler.hpp"
#include "strata/vision/image.hpp"
#include "strata/ops/shape.hpp"

namespace strata::vision {

Tensor resize(const Tensor& image, int64_t height, int64_t width, Interpolation mode) {
  if (detail::is_batch(image))
    return detail::per_image(image, "resize", [&](const Tensor& one) { return resize(one, height, width, mode); });
  detail::check_image(image, "resize");
  STRATA_CHECK(height >= 1 && width >= 1, "resize: expected a positive size, got ", height, "x", width);
  STRATA_CHECK(image.size(0) >= 1 && image.size(1) >= 1, "resize: cannot resize an empty image of shape ",
               image.shape().str());
  const double sy = static_cast<double>(image.size(0)) / height, sx = static_cast<double>(image.size(1)) / width;
  const double max_x = static_cast<double>(image.size(1) - 1), max_y = static_cast<double>(image.size(0) - 1);
  // Coordinates are clamped to the input, so the fill is never used.
  auto where = [=](double ox, double oy) {
    return std::pair{std::clamp((ox + 0.5) * sx - 0.5, 0.0, max_x), std::clamp((oy + 0.5) * sy - 0.5, 0.0, max_y)};
  };
  return detail::resample(image, height, width, where, mode, 0);
}

Affine Affine::rotation(double degrees) {
  const double r = degrees * std::numbers::pi / 180, c = std::cos(r), s = std::sin(r);
  return {c, s, 0, -s, c, 0};  // y points down, so counter-clockwise on screen flips the sines
}
Affine Affine::shift(double dx, double dy) { return {1, 0, dx, 0, 1, dy}; }
Affine Affine::zoom(double zx, double zy) { return {zx, 0, 0, 0, zy, 0}; }
Affine Affine::shear(double degrees) { return {1, -std::tan(degrees * std::numbers::pi / 180), 0, 0, 1, 0}; }

Affine Affine::inverse() const {
  const double det = a * e - b * d;
  STRATA_CHECK(std::abs(det) > 1e-12, "Affine::inverse: the matrix is singular (determinant ", det, ")");
  return {e / det, -b / det, (b * f - c * e) / det, -d / det, a / det, (c * d - a * f) / det};
}

Affine operator*(const Affine& p, const Affine& q) {
  return {p.a * q.a + p.b * q.d, p.a * q.b + p.b * q.e, p.a * q.c + p.b * q.f + p.c,
          p.d * q.a + p.e * q.d, p.d * q.b + p.e * q.e, p.d * q.c + p.e * q.f + p.f};
}

Tensor affine_transform(const Tensor& image, const Affine& transform, Interpolation mode, double fill) {
  if (detail::is_batch(image))
    return detail::per_image(image, "affine_transform", [&](const Tensor& one) { return affine_transform(one, transform, mode, fill); });
  detail::check_image(image, "affine_transform");
  const Affine inv = transform.inverse();
  const double cx = (static_cast<double>(image.size(1)) - 1) / 2, cy = (static_cast<double>(image.size(0)) - 1) / 2;
  auto where = [=](double ox, double oy) {
    const double x = ox - cx, y = oy - cy;
    return std::pair{inv.a * x + inv.b * y + inv.c + cx, inv.d * x + inv.e * y + inv.f + cy};
  };
  return detail::resample(image, image.size(0), image.size(1), where, mode, fill);
}

Affine random_affine(const AffineRanges& r, Generator& gen) {
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  auto draw = [&](double range) { return range * unit(gen.engine()); };
  const double zoom = 1 + draw(r.zoom);
  return Affine::shift(draw(r.shift_x), draw(r.shift_y)) * Affine::rotation(draw(r.rotation_degrees)) *
         Affine::shear(draw(r.shear_degrees)) * Affine::zoom(zoom, zoom);
}

Tensor random_affine_transform(const Tensor& images, const AffineRanges& ranges, Generator& gen, Interpolation mode,
                               double fill) {
  if (detail::is_batch(images))
    return detail::per_image(images, "random_affine_transform",
                             [&](const Tensor& one) { return random_affine_transform(one, ranges, gen, mode, fill); });
  detail::check_image(images, "random_affine_transform");
  return affine_transform(images, random_affine(ranges, gen), mode, fill);
}

}  // namespace strata::vision
