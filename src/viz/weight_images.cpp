// Filters and weight columns stretched image by image into [0, 1], then laid out by image_grid.
#include "strata/viz/weight_images.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "strata/core/error.hpp"
#include "strata/core/factory.hpp"
#include "strata/data/image_codec.hpp"
#include "strata/viz/visualize.hpp"

namespace strata::viz {
namespace {

// Each run of `size` values stretched by its own min and max into [0, 1] (0.5 where constant).
void stretch_each(std::vector<double>& v, size_t size, const char* what) {
  for (size_t start = 0; start < v.size(); start += size) {
    const auto first = v.begin() + static_cast<std::ptrdiff_t>(start), last = first + static_cast<std::ptrdiff_t>(size);
    STRATA_CHECK(std::all_of(first, last, [](double e) { return std::isfinite(e); }), what,
                 ": the weights hold a NaN or an infinity");
    const auto [lo, hi] = std::minmax_element(first, last);
    const double low = *lo, span = *hi - *lo;
    for (auto it = first; it != last; ++it) *it = span > 0 ? (*it - low) / span : 0.5;
  }
}

}  // namespace

Tensor filter_grid(const Tensor& weight, int64_t padding) {
  STRATA_CHECK(weight.defined() && weight.dim() == 4 && is_floating(weight.dtype()),
               "filter_grid: expected float convolution weights [kh, kw, in, out], got ",
               weight.defined() ? weight.shape().str() : "an undefined tensor");
  const Shape& s = weight.shape();
  const int64_t kh = s[0], kw = s[1], in = s[2], out = s[3];
  STRATA_CHECK(in == 1 || in == 3, "filter_grid: filters of ", in,
               " input channels are not images (1 or 3); draw some: weight.narrow(2, c, 1)");
  STRATA_CHECK(out >= 1 && kh >= 1 && kw >= 1, "filter_grid: no filters in ", s.str());
  // [kh, kw, in, out] -> [out, kh, kw, in]: one image per filter
  std::vector<double> v = weight.permute({3, 0, 1, 2}).contiguous().to_vector<double>();
  stretch_each(v, static_cast<size_t>(kh * kw * in), "filter_grid");
  return image_grid(from_vector(v, Shape{out, kh, kw, in}).to(kFloat32), 0, 0, padding);
}

void save_filter_grid(const Tensor& weight, const std::string& path, int64_t padding) {
  data::write_image(path, filter_grid(weight, padding));
}

Tensor weight_images(const Tensor& weight, const std::vector<int64_t>& shape, int64_t max_units, int64_t padding) {
  STRATA_CHECK(weight.defined() && weight.dim() == 2 && is_floating(weight.dtype()),
               "weight_images: expected float weights [n_in, units], got ",
               weight.defined() ? weight.shape().str() : "an undefined tensor");
  const int64_t n_in = weight.shape()[0], units = std::min(weight.shape()[1], max_units);
  STRATA_CHECK(shape.size() == 2 && shape[0] >= 1 && shape[1] >= 1 && shape[0] * shape[1] == n_in,
               "weight_images: shape must be {height, width} with height · width = ", n_in, " (the inputs per unit)");
  STRATA_CHECK(units >= 1, "weight_images: no units to draw (max_units ", max_units, ")");
  // [units, n_in]. draw_weights scales each column to unit length first, which the stretch undoes.
  std::vector<double> v = weight.narrow(1, 0, units).transpose(0, 1).contiguous().to_vector<double>();
  stretch_each(v, static_cast<size_t>(n_in), "weight_images");
  return image_grid(from_vector(v, Shape{units, shape[0], shape[1]}).to(kFloat32), 0, 0, padding);
}

void save_weight_images(const Tensor& weight, const std::vector<int64_t>& shape, const std::string& path,
                        int64_t max_units, int64_t padding) {
  data::write_image(path, weight_images(weight, shape, max_units, padding));
}

}  // namespace strata::viz
