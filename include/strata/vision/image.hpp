// Image preprocessing and augmentation (TensorLayer's prepro) on one HWC image, uint8 or float.
// Every function returns a new tensor of the input's dtype (samplewise_normalize: float32 for
// uint8 input); uint8 results are rounded and clamped to [0, 255]. Each also takes an NHWC batch:
// image by image, random ones drawing per image in order (image 0 first); statistics
// (contrast's means, samplewise_normalize's) are per image.
#pragma once
#include <cstdint>

#include "strata/core/factory.hpp"
#include "strata/core/tensor.hpp"

namespace strata::vision {

enum class Interpolation { nearest, bilinear };

Tensor flip_left_right(const Tensor& image);
Tensor flip_up_down(const Tensor& image);
// Rotated counter-clockwise by k * 90 degrees (NumPy's rot90 over the H and W axes).
Tensor rot90(const Tensor& image, int k = 1);

// The h x w window in the middle (rounded toward the top-left), or at a random place.
Tensor central_crop(const Tensor& image, int64_t height, int64_t width);
Tensor random_crop(const Tensor& image, int64_t height, int64_t width, Generator& gen = default_generator());

// Pixel centres aligned (align_corners = false, like OpenCV and tf.image.resize).
Tensor resize(const Tensor& image, int64_t height, int64_t width, Interpolation mode = Interpolation::bilinear);
// Bicubic (Keys, a = -0.5) as Pillow's resize(BICUBIC) and Matlab's imresize: when shrinking, the
// kernel widens by the scale factor (antialiased, the usual way to make super-resolution inputs).
// uint8 results are rounded once at the end (Pillow also rounds between its two passes, so
// Pillow's uint8 results may differ by 1).
Tensor resize_bicubic(const Tensor& image, int64_t height, int64_t width);

// x + delta (delta in the image's own units: 0..255 for uint8).
Tensor adjust_brightness(const Tensor& image, double delta);
// Each channel's distance from its mean scaled by factor.
Tensor adjust_contrast(const Tensor& image, double factor);
// (x - mean) / std over the whole image (Keras' samplewise_center + samplewise_std_normalization).
Tensor samplewise_normalize(const Tensor& image, double epsilon = 1e-7);

// A 2-D affine map of pixel coordinates (x = column, y = row) with the origin at the image
// centre: x' = a x + b y + c, y' = d x + e y + f. Compose with *: (A * B) applies B, then A.
struct Affine {
  double a = 1, b = 0, c = 0, d = 0, e = 1, f = 0;

  static Affine identity() { return {}; }
  static Affine rotation(double degrees);       // counter-clockwise as seen on screen
  static Affine shift(double dx, double dy);    // in pixels; +dx moves the content right
  static Affine zoom(double zx, double zy);     // > 1 enlarges the content
  static Affine shear(double degrees);          // x' = x - tan(angle) y
  Affine inverse() const;
};
Affine operator*(const Affine& p, const Affine& q);

// The image moved by `transform` (output pixel p shows input pixel transform^-1(p)), resampled
// once; pixels from outside the input are `fill`.
Tensor affine_transform(const Tensor& image, const Affine& transform, Interpolation mode = Interpolation::bilinear,
                        double fill = 0);

// A random rotation, shift, zoom and shear as one matrix (TensorLayer's affine_*_matrix), each
// drawn uniformly from [-range, range] (zoom from [1 - range, 1 + range]).
struct AffineRanges {
  double rotation_degrees = 0, shift_x = 0, shift_y = 0, zoom = 0, shear_degrees = 0;
};
Affine random_affine(const AffineRanges& ranges, Generator& gen = default_generator());
// affine_transform with a random_affine drawn for each image.
Tensor random_affine_transform(const Tensor& images, const AffineRanges& ranges, Generator& gen = default_generator(),
                               Interpolation mode = Interpolation::bilinear, double fill = 0);

}  // namespace strata::vision
