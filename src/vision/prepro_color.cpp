// Gamma (scikit-image's adjust_gamma), TensorLayer's illumination (gamma, then Pillow's contrast
// and colour enhancers) and its pixel drop.
#include <array>
#include <cmath>
#include <random>

#include "strata/core/error.hpp"
#include "strata/vision/prepro.hpp"

namespace strata::vision {

namespace {

void check_float_or_u8(const Tensor& image, const char* op) {
  STRATA_CHECK(image.defined(), op, ": expected an image, got an undefined tensor");
  const DType t = image.dtype();
  STRATA_CHECK(t == kUInt8 || t == kFloat32 || t == kFloat64, op, ": expected a uint8, float32 or float64 image, got ",
               dtype_name(t));
}

// Pillow's Image.blend(a, b, alpha) of uint8 values: a + alpha (b - a) in single precision,
// clipped to [0, 255] and truncated (Blend.c). The product is rounded to float on its own, as
// Pillow's build does: a fused multiply-add (what -ffp-contract may make of a + alpha * d) rounds
// once and can land on the other side of an integer.
uint8_t pillow_blend(int a, int b, float alpha) {
  const float product = float(double(alpha) * double(b - a));  // exact in double, then rounded
  const float v = float(double(a) + double(product));
  return v <= 0.f ? 0 : v >= 255.f ? 255 : uint8_t(v);
}

// Pillow's RGB -> L (Convert.c, rgb2l).
int pillow_grey(const uint8_t* rgb) { return (rgb[0] * 19595 + rgb[1] * 38470 + rgb[2] * 7471 + 0x8000) >> 16; }

}  // namespace

Tensor adjust_gamma(const Tensor& image, double gamma, double gain) {
  check_float_or_u8(image, "adjust_gamma");
  STRATA_CHECK(gamma >= 0 && gain >= 0, "adjust_gamma: expected gamma >= 0 and gain >= 0, got gamma ", gamma,
               " and gain ", gain);
  if (image.dtype() == kUInt8) {
    // skimage: lut = 255 * gain * np.linspace(0, 1, 256) ** gamma, rounded half to even.
    std::array<uint8_t, 256> lut{};
    for (int i = 0; i < 256; ++i) {
      const double level = i == 255 ? 1.0 : i * (1.0 / 255);
      lut[i] = uint8_t(std::min(std::nearbyint(255 * gain * std::pow(level, gamma)), 255.0));
    }
    std::vector<uint8_t> v = image.to_vector<uint8_t>();
    for (uint8_t& x : v) x = lut[x];
    return from_vector(v, image.shape());
  }
  std::vector<double> v = image.to_vector<double>();
  for (double& x : v) {
    STRATA_CHECK(x >= 0, "adjust_gamma: expected a float image with values >= 0 (scikit-image's rule), got ", x);
    x = std::pow(x, gamma) * gain;
  }
  return from_vector(v, image.shape()).to(image.dtype());
}

Tensor illumination(const Tensor& image, double gamma, double contrast, double saturation) {
  STRATA_CHECK(image.defined() && image.dtype() == kUInt8 &&
                   (image.dim() == 2 || (image.dim() == 3 && (image.size(2) == 1 || image.size(2) == 3))),
               "illumination: expected a uint8 image, 2-D or HWC with 1 or 3 channels (what Pillow takes), got ",
               image.defined() ? image.shape().str() + " " + dtype_name(image.dtype()) : std::string("undefined"));
  STRATA_CHECK(contrast >= 0 && saturation >= 0, "illumination: expected contrast >= 0 and saturation >= 0, got ",
               contrast, " and ", saturation);
  std::vector<uint8_t> px = adjust_gamma(image, gamma, 1).to_vector<uint8_t>();
  const bool rgb = image.dim() == 3 && image.size(2) == 3;
  const size_t n = rgb ? px.size() / 3 : px.size();
  auto grey = [&](size_t i) { return rgb ? pillow_grey(&px[3 * i]) : int(px[i]); };
  // Contrast: blend with a flat image at the mean grey level, int(mean + 0.5) (ImageStat).
  double sum = 0;
  for (size_t i = 0; i < n; ++i) sum += grey(i);
  const int mean = n == 0 ? 0 : int(sum / double(n) + 0.5);
  for (uint8_t& v : px) v = pillow_blend(mean, v, float(contrast));
  // Colour: blend with the image's own grey levels (L converted back to RGB).
  if (rgb) {
    for (size_t i = 0; i < n; ++i) {
      const int g = pillow_grey(&px[3 * i]);
      for (int c = 0; c < 3; ++c) px[3 * i + c] = pillow_blend(g, px[3 * i + c], float(saturation));
    }
  }
  return from_vector(px, image.shape());
}

Tensor random_illumination(const Tensor& image, const IlluminationRanges& ranges, Generator& gen) {
  std::uniform_int_distribution<int> setting(0, 2);  // brighter, darker, unchanged
  auto uniform = [&](double lo, double hi) {
    return lo + (hi - lo) * std::uniform_real_distribution<double>(0, 1)(gen.engine());
  };
  const int s = setting(gen.engine());
  const double gamma = s == 0 ? uniform(ranges.gamma[0], 1.0) : s == 1 ? uniform(1.0, ranges.gamma[1]) : 1.0;
  const double contrast = uniform(ranges.contrast[0], ranges.contrast[1]);
  const double saturation = uniform(ranges.saturation[0], ranges.saturation[1]);
  return illumination(image, gamma, contrast, saturation);
}

Tensor drop(const Tensor& image, double keep, Generator& gen) {
  check_float_or_u8(image, "drop");
  STRATA_CHECK(keep >= 0 && keep <= 1, "drop: expected keep in [0, 1], got ", keep);
  STRATA_CHECK(image.dim() >= 1 && image.dim() <= 3, "drop: expected an HWC image or a 2-D or 1-D array, got ",
               image.shape().str());
  const int64_t channels = image.dim() == 3 ? image.size(2) : 1;
  std::vector<double> v = image.to_vector<double>();
  std::bernoulli_distribution kept(keep);
  for (size_t i = 0; i < v.size(); i += size_t(channels)) {
    if (kept(gen.engine())) continue;
    for (int64_t c = 0; c < channels; ++c) v[i + size_t(c)] = 0;
  }
  return from_vector(v, image.shape()).to(image.dtype());
}

}  // namespace strata::vision
