// Elastic transform: random displacement fields, Gaussian-smoothed, through the shared sampler.
#include "strata/vision/elastic.hpp"

#include <cmath>
#include <random>
#include <vector>

#include "image_common.hpp"
#include "sampler.hpp"

namespace strata::vision {

namespace {

// scipy.ndimage.gaussian_filter1d's weights: radius round(4 sigma), normalised to sum 1.
std::vector<double> gaussian_weights(double sigma) {
  const auto radius = static_cast<int64_t>(4 * sigma + 0.5);
  std::vector<double> w(2 * radius + 1);
  double total = 0;
  for (int64_t i = -radius; i <= radius; ++i)
    total += w[i + radius] = radius == 0 ? 1 : std::exp(-0.5 * static_cast<double>(i * i) / (sigma * sigma));
  for (double& x : w) x /= total;
  return w;
}

// Separable Gaussian blur of an h x w field, zero outside.
std::vector<double> blur(const std::vector<double>& field, int64_t h, int64_t w, const std::vector<double>& weights) {
  const auto radius = static_cast<int64_t>(weights.size() / 2);
  std::vector<double> rows(field.size(), 0.0), out(field.size(), 0.0);
  for (int64_t y = 0; y < h; ++y)
    for (int64_t x = 0; x < w; ++x)
      for (int64_t k = -radius; k <= radius; ++k)
        if (x + k >= 0 && x + k < w) rows[y * w + x] += weights[k + radius] * field[y * w + x + k];
  for (int64_t y = 0; y < h; ++y)
    for (int64_t x = 0; x < w; ++x)
      for (int64_t k = -radius; k <= radius; ++k)
        if (y + k >= 0 && y + k < h) out[y * w + x] += weights[k + radius] * rows[(y + k) * w + x];
  return out;
}

std::vector<double> displacement(int64_t h, int64_t w, double alpha, const std::vector<double>& weights,
                                 Generator& gen) {
  std::uniform_real_distribution<double> noise(-1.0, 1.0);
  std::vector<double> field(h * w);
  for (double& v : field) v = noise(gen.engine());
  field = blur(field, h, w, weights);
  for (double& v : field) v *= alpha;
  return field;
}

}  // namespace

Tensor elastic_transform(const Tensor& image, double alpha, double sigma, Generator& gen, Interpolation mode,
                         double fill) {
  detail::check_images(image, "elastic_transform");
  STRATA_CHECK(std::isfinite(alpha) && std::isfinite(sigma) && sigma >= 0,
               "elastic_transform: expected a finite alpha and sigma >= 0, got alpha ", alpha, ", sigma ", sigma);
  const Tensor in = contiguous(image);
  Tensor out = Tensor::empty(in.shape(), in.dtype());
  const int64_t samples = detail::sample_count(in), h = in.size(-3), w = in.size(-2), c = in.size(-1);
  const std::vector<double> weights = gaussian_weights(sigma);
  detail::dispatch_image(in.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (int64_t n = 0; n < samples; ++n) {
      const std::vector<double> dx = displacement(h, w, alpha, weights, gen), dy = displacement(h, w, alpha, weights, gen);
      auto where = [&](double ox, double oy) {
        const auto i = static_cast<int64_t>(oy) * w + static_cast<int64_t>(ox);
        return std::pair{ox + dx[i], oy + dy[i]};
      };
      detail::sample(in.data<T>() + n * h * w * c, h, w, c, out.data<T>() + n * h * w * c, h, w, where, mode, fill);
    }
  });
  return out;
}

}  // namespace strata::vision
