// Shared by the image functions: input checks, dtype dispatch and storing a computed value.
#pragma once
#include <algorithm>
#include <cmath>
#include <functional>
#include <type_traits>

#include "strata/core/factory.hpp"
#include "strata/core/tensor.hpp"

namespace strata::vision::detail {

inline void check_image_dtype(const Tensor& image, const char* op) {
  const DType t = image.dtype();
  STRATA_CHECK(t == kUInt8 || t == kFloat32 || t == kFloat64, op, ": expected a uint8, float32 or float64 image, got ",
               dtype_name(t));
}

// Checks that `image` is HWC (rank 3) and uint8, float32 or float64.
inline void check_image(const Tensor& image, const char* op) {
  STRATA_CHECK(image.defined() && image.dim() == 3, op, ": expected an HWC image of rank 3, got ",
               image.defined() ? image.shape().str() : std::string("an undefined tensor"));
  check_image_dtype(image, op);
}

// Checks that `images` is one HWC image or an NHWC batch of uint8, float32 or float64.
inline void check_images(const Tensor& images, const char* op) {
  STRATA_CHECK(images.defined() && (images.dim() == 3 || images.dim() == 4), op,
               ": expected an HWC image or an NHWC batch, got ",
               images.defined() ? images.shape().str() : std::string("an undefined tensor"));
  check_image_dtype(images, op);
}

// 1 for an HWC image, N for an NHWC batch.
inline int64_t sample_count(const Tensor& images) { return images.dim() == 4 ? images.size(0) : 1; }

inline bool is_batch(const Tensor& images) { return images.defined() && images.dim() == 4; }

// For the functions written for one HWC image: an NHWC batch goes through fn one image at a
// time, in order (so image 0 gets the first random draws, as a single image would), and the
// results are stacked. An empty batch is an error (the output shape is unknown).
Tensor per_image(const Tensor& images, const char* op, const std::function<Tensor(const Tensor&)>& fn);

// Where central_crop and random_crop cut (checked to fit), and the cut itself; shared with the
// box-carrying crops so that boxes move by the same offset.
struct CropWindow {
  int64_t top, left, height, width;
};
CropWindow central_crop_window(const Tensor& image, int64_t height, int64_t width, const char* op);
CropWindow random_crop_window(const Tensor& image, int64_t height, int64_t width, Generator& gen, const char* op);
Tensor crop(const Tensor& image, const CropWindow& window);

// Calls fn(type_tag<T>{}) for the image dtypes.
template <class F>
decltype(auto) dispatch_image(DType t, F&& fn) {
  switch (t) {
    case DType::u8: return fn(type_tag<uint8_t>{});
    case DType::f32: return fn(type_tag<float>{});
    default: return fn(type_tag<double>{});
  }
}

// Calls fn(src, dst) with typed pointers to `in` and `out` (both contiguous, image dtypes).
template <class F>
void dispatch_image_pair(const Tensor& in, Tensor& out, F&& fn) {
  dispatch_image(in.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    dispatch_image(out.dtype(), [&](auto out_tag) {
      using U = typename decltype(out_tag)::type;
      fn(in.data<T>(), out.data<U>());
    });
  });
}

// v as a T: rounded and clamped to [0, 255] for uint8.
template <class T>
T store(double v) {
  if constexpr (std::is_same_v<T, uint8_t>) return static_cast<uint8_t>(std::clamp(std::nearbyint(v), 0.0, 255.0));
  else return static_cast<T>(v);
}

}  // namespace strata::vision::detail
