// Colour conversions and adjustments. Every pixel goes through doubles; HSV is computed in the
// image's own units (hue and saturation do not depend on the scale), so uint8 needs no rescaling
// except where HSV itself is returned.
#include "strata/vision/color.hpp"

#include <cmath>
#include <random>
#include <vector>

#include "image_common.hpp"
#include "strata/ops/shape.hpp"

namespace strata::vision {

namespace {

void check_rgb(const Tensor& image, const char* op) {
  detail::check_images(image, op);
  STRATA_CHECK(image.size(-1) == 3, op, ": expected 3 channels (RGB) in the last axis, got shape ", image.shape().str());
}

struct Hsv {
  double h, s, v;
};

Hsv to_hsv(double r, double g, double b) {
  const double v = std::max({r, g, b}), range = v - std::min({r, g, b});
  if (range <= 0) return {0, 0, v};
  double h;
  if (v == r) h = (g - b) / range;
  else if (v == g) h = (b - r) / range + 2;
  else h = (r - g) / range + 4;
  h /= 6;
  if (h < 0) h += 1;
  return {h, v > 0 ? range / v : 0, v};
}

void to_rgb(Hsv p, double* rgb) {
  const double h6 = (p.h - std::floor(p.h)) * 6;
  const double sector = std::floor(h6), f = h6 - sector;
  const double v = p.v, lo = v * (1 - p.s), falling = v * (1 - p.s * f), rising = v * (1 - p.s * (1 - f));
  const double table[6][3] = {{v, rising, lo}, {falling, v, lo}, {lo, v, rising},
                              {lo, falling, v}, {rising, lo, v}, {v, lo, falling}};
  // NaN (from a NaN pixel) must not index the table; h6 == 6 (rounding) is sector 0.
  const double* row = table[h6 >= 0 && h6 < 6 ? static_cast<int>(sector) : 0];
  rgb[0] = row[0], rgb[1] = row[1], rgb[2] = row[2];
}

// fn(hsv, sample) -> hsv for every pixel of every image, the result converted back to RGB.
template <class F>
Tensor map_hsv(const Tensor& image, F fn) {
  const Tensor in = contiguous(image);
  Tensor out = Tensor::empty(in.shape(), in.dtype());
  const int64_t samples = detail::sample_count(in), pixels = in.numel() / 3 / std::max<int64_t>(samples, 1);
  detail::dispatch_image(in.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* src = in.data<T>();
    T* dst = out.data<T>();
    for (int64_t n = 0; n < samples; ++n) {
      for (int64_t p = 0; p < pixels; ++p, src += 3, dst += 3) {
        double rgb[3];
        to_rgb(fn(to_hsv(src[0], src[1], src[2]), n), rgb);
        for (int c = 0; c < 3; ++c) dst[c] = detail::store<T>(rgb[c]);
      }
    }
  });
  return out;
}

std::vector<double> draw_uniform(int64_t count, double low, double high, Generator& gen) {
  std::uniform_real_distribution<double> dist(low, high);
  std::vector<double> values(count);
  for (double& v : values) v = low == high ? low : dist(gen.engine());
  return values;
}

// Each image shifted by its own intensity and clamped to its own range.
Tensor shift_channels(const Tensor& image, const std::vector<double>& intensity) {
  const Tensor in = contiguous(image);
  Tensor out = Tensor::empty(in.shape(), in.dtype());
  const int64_t samples = detail::sample_count(in), per_sample = in.numel() / std::max<int64_t>(samples, 1);
  detail::dispatch_image(in.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (int64_t n = 0; n < samples; ++n) {
      const T* src = in.data<T>() + n * per_sample;
      T* dst = out.data<T>() + n * per_sample;
      if (per_sample == 0) continue;
      const auto [lo, hi] = std::minmax_element(src, src + per_sample);
      const double low = *lo, high = *hi;
      for (int64_t i = 0; i < per_sample; ++i) dst[i] = detail::store<T>(std::clamp(src[i] + intensity[n], low, high));
    }
  });
  return out;
}

}  // namespace

Tensor rgb_to_hsv(const Tensor& image) {
  check_rgb(image, "rgb_to_hsv");
  const Tensor in = contiguous(image);
  Tensor out = Tensor::empty(in.shape(), in.dtype() == kUInt8 ? kFloat32 : in.dtype());
  const double scale = in.dtype() == kUInt8 ? 1.0 / 255 : 1.0;
  detail::dispatch_image_pair(in, out, [&](const auto* src, auto* dst) {
    using U = std::remove_pointer_t<decltype(dst)>;
    for (int64_t i = 0; i < in.numel(); i += 3) {
      const Hsv p = to_hsv(src[i] * scale, src[i + 1] * scale, src[i + 2] * scale);
      dst[i] = static_cast<U>(p.h), dst[i + 1] = static_cast<U>(p.s), dst[i + 2] = static_cast<U>(p.v);
    }
  });
  return out;
}

Tensor hsv_to_rgb(const Tensor& hsv) {
  check_rgb(hsv, "hsv_to_rgb");
  STRATA_CHECK(hsv.dtype() != kUInt8, "hsv_to_rgb: expected a float32 or float64 HSV image, got uint8");
  const Tensor in = contiguous(hsv);
  Tensor out = Tensor::empty(in.shape(), in.dtype());
  detail::dispatch_image(in.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* src = in.data<T>();
    T* dst = out.data<T>();
    for (int64_t i = 0; i < in.numel(); i += 3) {
      double rgb[3];
      to_rgb({static_cast<double>(src[i]), static_cast<double>(src[i + 1]), static_cast<double>(src[i + 2])}, rgb);
      for (int c = 0; c < 3; ++c) dst[i + c] = static_cast<T>(rgb[c]);
    }
  });
  return out;
}

Tensor adjust_hue(const Tensor& image, double delta) {
  check_rgb(image, "adjust_hue");
  STRATA_CHECK(std::isfinite(delta), "adjust_hue: expected a finite delta, got ", delta);
  return map_hsv(image, [delta](Hsv p, int64_t) { return Hsv{p.h + delta, p.s, p.v}; });
}

Tensor adjust_saturation(const Tensor& image, double factor) {
  check_rgb(image, "adjust_saturation");
  STRATA_CHECK(std::isfinite(factor) && factor >= 0, "adjust_saturation: expected a finite factor >= 0, got ", factor);
  return map_hsv(image, [factor](Hsv p, int64_t) { return Hsv{p.h, std::clamp(p.s * factor, 0.0, 1.0), p.v}; });
}

Tensor random_hue(const Tensor& image, double max_delta, Generator& gen) {
  check_rgb(image, "random_hue");
  STRATA_CHECK(std::isfinite(max_delta) && max_delta >= 0, "random_hue: expected max_delta >= 0, got ", max_delta);
  const std::vector<double> delta = draw_uniform(detail::sample_count(image), -max_delta, max_delta, gen);
  return map_hsv(image, [&](Hsv p, int64_t n) { return Hsv{p.h + delta[n], p.s, p.v}; });
}

Tensor random_saturation(const Tensor& image, double lower, double upper, Generator& gen) {
  check_rgb(image, "random_saturation");
  STRATA_CHECK(0 <= lower && lower <= upper && std::isfinite(upper), "random_saturation: expected 0 <= lower <= upper, got [", lower, ", ",
               upper, "]");
  const std::vector<double> factor = draw_uniform(detail::sample_count(image), lower, upper, gen);
  return map_hsv(image, [&](Hsv p, int64_t n) { return Hsv{p.h, std::clamp(p.s * factor[n], 0.0, 1.0), p.v}; });
}

Tensor channel_shift(const Tensor& image, double intensity) {
  detail::check_images(image, "channel_shift");
  return shift_channels(image, std::vector<double>(detail::sample_count(image), intensity));
}

Tensor random_channel_shift(const Tensor& image, double intensity_range, Generator& gen) {
  detail::check_images(image, "random_channel_shift");
  STRATA_CHECK(std::isfinite(intensity_range) && intensity_range >= 0, "random_channel_shift: expected intensity_range >= 0, got ", intensity_range);
  return shift_channels(image, draw_uniform(detail::sample_count(image), -intensity_range, intensity_range, gen));
}

}  // namespace strata::vision
