// Image operations that do not resample: flips, rotations by 90 degrees, crops, and pixel-value
// adjustments. Resampling (resize, affine) is in resample.cpp.
#include "strata/vision/image.hpp"

#include <vector>

#include "image_common.hpp"
#include "strata/autograd/grad_mode.hpp"
#include "strata/ops/combine.hpp"
#include "strata/ops/shape.hpp"

namespace strata::vision {

namespace {

// H and W are the third- and second-last axes, so HWC images and NHWC batches both work.
void check_flip(const Tensor& image, const char* op) {
  STRATA_CHECK(image.defined() && image.dim() >= 3, op, ": expected an HWC image or NHWC batch, got ",
               image.defined() ? image.shape().str() : std::string("an undefined tensor"));
}

// Applies fn to every value as a double, channel by channel: fn(value, channel).
template <class F>
Tensor map_values(const Tensor& image, F fn) {
  const Tensor in = contiguous(image);
  Tensor out = Tensor::empty(in.shape(), in.dtype());
  const int64_t channels = in.size(2), n = in.numel();
  detail::dispatch_image(in.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* src = in.data<T>();
    T* dst = out.data<T>();
    for (int64_t i = 0; i < n; ++i) dst[i] = detail::store<T>(fn(static_cast<double>(src[i]), i % channels));
  });
  return out;
}

std::vector<double> channel_means(const Tensor& image) {
  const Tensor in = contiguous(image);
  const int64_t channels = in.size(2), n = in.numel();
  std::vector<double> sum(channels, 0.0);
  detail::dispatch_image(in.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* src = in.data<T>();
    for (int64_t i = 0; i < n; ++i) sum[i % channels] += static_cast<double>(src[i]);
  });
  for (double& s : sum) s /= std::max<int64_t>(n / std::max<int64_t>(channels, 1), 1);
  return sum;
}

}  // namespace

namespace detail {

Tensor per_image(const Tensor& images, const char* op, const std::function<Tensor(const Tensor&)>& fn) {
  check_images(images, op);
  STRATA_CHECK(images.size(0) > 0, op, ": expected at least one image in the batch, got shape ", images.shape().str());
  NoGradGuard no_grad;
  std::vector<Tensor> results;
  results.reserve(images.size(0));
  for (int64_t n = 0; n < images.size(0); ++n) results.push_back(fn(select(images, 0, n)));
  return stack(results, 0);
}

namespace {

void check_crop(const Tensor& image, int64_t height, int64_t width, const char* op) {
  check_image(image, op);
  STRATA_CHECK(height >= 1 && width >= 1 && height <= image.size(0) && width <= image.size(1), op, ": a ", height, "x",
               width, " crop does not fit in an image of shape ", image.shape().str());
}

}  // namespace

CropWindow central_crop_window(const Tensor& image, int64_t height, int64_t width, const char* op) {
  check_crop(image, height, width, op);
  return {(image.size(0) - height) / 2, (image.size(1) - width) / 2, height, width};
}

CropWindow random_crop_window(const Tensor& image, int64_t height, int64_t width, Generator& gen, const char* op) {
  check_crop(image, height, width, op);
  const int64_t top = static_cast<int64_t>(gen.engine()() % static_cast<uint64_t>(image.size(0) - height + 1));
  const int64_t left = static_cast<int64_t>(gen.engine()() % static_cast<uint64_t>(image.size(1) - width + 1));
  return {top, left, height, width};
}

Tensor crop(const Tensor& image, const CropWindow& window) {
  NoGradGuard no_grad;
  return contiguous(narrow(narrow(image, 0, window.top, window.height), 1, window.left, window.width));
}

}  // namespace detail

Tensor flip_left_right(const Tensor& image) {
  check_flip(image, "flip_left_right");
  NoGradGuard no_grad;
  return flip(image, {-2});
}

Tensor flip_up_down(const Tensor& image) {
  check_flip(image, "flip_up_down");
  NoGradGuard no_grad;
  return flip(image, {-3});
}

Tensor rot90(const Tensor& image, int k) {
  check_flip(image, "rot90");
  NoGradGuard no_grad;
  switch (((k % 4) + 4) % 4) {
    case 1: return flip(transpose(image, -3, -2), {-3});
    case 2: return flip(image, {-3, -2});
    case 3: return flip(transpose(image, -3, -2), {-2});
    default: return clone(image);
  }
}

Tensor central_crop(const Tensor& image, int64_t height, int64_t width) {
  if (detail::is_batch(image))
    return detail::per_image(image, "central_crop", [&](const Tensor& one) { return central_crop(one, height, width); });
  return detail::crop(image, detail::central_crop_window(image, height, width, "central_crop"));
}

Tensor random_crop(const Tensor& image, int64_t height, int64_t width, Generator& gen) {
  if (detail::is_batch(image))
    return detail::per_image(image, "random_crop", [&](const Tensor& one) { return random_crop(one, height, width, gen); });
  return detail::crop(image, detail::random_crop_window(image, height, width, gen, "random_crop"));
}

Tensor adjust_brightness(const Tensor& image, double delta) {
  if (detail::is_batch(image))
    return detail::per_image(image, "adjust_brightness", [&](const Tensor& one) { return adjust_brightness(one, delta); });
  detail::check_image(image, "adjust_brightness");
  return map_values(image, [delta](double v, int64_t) { return v + delta; });
}

Tensor adjust_contrast(const Tensor& image, double factor) {
  if (detail::is_batch(image))
    return detail::per_image(image, "adjust_contrast", [&](const Tensor& one) { return adjust_contrast(one, factor); });
  detail::check_image(image, "adjust_contrast");
  const std::vector<double> mean = channel_means(image);
  return map_values(image, [&](double v, int64_t c) { return (v - mean[c]) * factor + mean[c]; });
}

Tensor samplewise_normalize(const Tensor& image, double epsilon) {
  if (detail::is_batch(image))
    return detail::per_image(image, "samplewise_normalize", [&](const Tensor& one) { return samplewise_normalize(one, epsilon); });
  detail::check_image(image, "samplewise_normalize");
  const Tensor x = image.dtype() == kUInt8 ? image.to(kFloat32) : image;
  const std::vector<double> values = x.to_vector<double>();
  double mean = 0, var = 0;
  for (double v : values) mean += v;
  mean /= std::max<size_t>(values.size(), 1);
  for (double v : values) var += (v - mean) * (v - mean);
  const double stddev = std::sqrt(var / std::max<size_t>(values.size(), 1));
  return map_values(x, [=](double v, int64_t) { return (v - mean) / (stddev + epsilon); });
}

}  // namespace strata::vision
