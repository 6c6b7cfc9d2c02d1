// Binary and grey dilation and erosion with a disk (scikit-image's morphology, which TensorLayer's
// binary_dilation, binary_erosion and erosion call; its own dilation calls itself and never ran).
#include <algorithm>
#include <functional>

#include "strata/core/error.hpp"
#include "strata/vision/prepro.hpp"

namespace strata::vision {

namespace {

// For each pixel, fold `pick` over the pixels of the disk around it that lie inside the image.
// The disk is symmetric, so dilation needs no mirrored footprint.
// binary: nonzero reads as 1.
std::vector<double> morphology_over_disk(const Tensor& image, int64_t radius, bool binary, const char* op,
                                         const std::function<double(double, double)>& pick) {
  STRATA_CHECK(image.defined() && image.dim() == 2, op, ": expected a 2-D image, got ",
               image.defined() ? image.shape().str() : std::string("an undefined tensor"));
  STRATA_CHECK(radius >= 0 && radius <= 1024, op, ": expected a disk radius in [0, 1024], got ", radius);
  const int64_t rows = image.size(0), cols = image.size(1);
  std::vector<double> in = image.to_vector<double>();
  if (binary)
    std::replace_if(
        in.begin(), in.end(), [](double v) { return v != 0; }, 1.0);
  std::vector<double> out(in.size());
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) {
      double acc = in[size_t(r * cols + c)];
      for (int64_t dy = -std::min(radius, r); dy <= std::min(radius, rows - 1 - r); ++dy) {
        for (int64_t dx = -std::min(radius, c); dx <= std::min(radius, cols - 1 - c); ++dx) {
          if (dy * dy + dx * dx <= radius * radius) acc = pick(acc, in[size_t((r + dy) * cols + c + dx)]);
        }
      }
      out[size_t(r * cols + c)] = acc;
    }
  }
  return out;
}

Tensor grey_morphology(const Tensor& image, int64_t radius, const char* op,
                       const std::function<double(double, double)>& pick) {
  STRATA_CHECK(!image.defined() || image.dtype() != kBool, op, ": expected a grey image, got bool (use binary_",
               std::string(op), ")");
  return from_vector(morphology_over_disk(image, radius, false, op, pick), image.shape()).to(image.dtype());
}

double max_of(double a, double b) { return std::max(a, b); }
double min_of(double a, double b) { return std::min(a, b); }

}  // namespace

Tensor disk(int64_t radius) {
  STRATA_CHECK(radius >= 0 && radius <= 1024, "disk: expected a radius in [0, 1024], got ", radius);
  const int64_t side = 2 * radius + 1;
  std::vector<uint8_t> v(size_t(side * side));
  for (int64_t y = -radius; y <= radius; ++y)
    for (int64_t x = -radius; x <= radius; ++x)
      v[size_t((y + radius) * side + x + radius)] = x * x + y * y <= radius * radius;
  return from_vector(v, {side, side});
}

Tensor binary_dilation(const Tensor& image, int64_t radius) {
  return from_vector(morphology_over_disk(image, radius, true, "binary_dilation", max_of), image.shape()).to(kBool);
}

Tensor binary_erosion(const Tensor& image, int64_t radius) {
  return from_vector(morphology_over_disk(image, radius, true, "binary_erosion", min_of), image.shape()).to(kBool);
}

Tensor dilation(const Tensor& image, int64_t radius) { return grey_morphology(image, radius, "dilation", max_of); }

Tensor erosion(const Tensor& image, int64_t radius) { return grey_morphology(image, radius, "erosion", min_of); }

}  // namespace strata::vision
