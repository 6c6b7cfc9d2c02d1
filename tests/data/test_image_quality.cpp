// resize_bicubic against Pillow's float bicubic, psnr / ssim / rgb_to_luma against scikit-image
// (values in image_quality_fixture.hpp, written by make_image_quality_fixture.py).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "data/image_quality_fixture.hpp"
#include "support/expect_error.hpp"
#include "support/max_abs_diff.hpp"
#include "strata/strata.hpp"

namespace strata::data {
namespace {

// The fixture's images (see the script's docstring), 16 x 20 x 3 uint8.
Tensor image_a() {
  std::vector<uint8_t> v;
  for (int y = 0; y < 16; ++y)
    for (int x = 0; x < 20; ++x)
      for (int c = 0; c < 3; ++c) v.push_back(static_cast<uint8_t>((37 * x + 91 * y + 53 * c + 7 * x * y) % 256));
  return from_vector(v, {16, 20, 3});
}
Tensor image_b() {
  std::vector<uint8_t> v;
  for (int y = 0; y < 16; ++y)
    for (int x = 0; x < 20; ++x)
      for (int c = 0; c < 3; ++c) {
        const int a = (37 * x + 91 * y + 53 * c + 7 * x * y) % 256;
        v.push_back(static_cast<uint8_t>(std::clamp(a + (5 * x + 3 * y + 11 * c) % 41 - 20, 0, 255)));
      }
  return from_vector(v, {16, 20, 3});
}

Tensor expected(const std::vector<double>& v, int64_t h, int64_t w, int64_t c = 3) { return from_vector(v, {h, w, c}); }

TEST(ResizeBicubicTest, MatchesPillowWhenShrinkingAndEnlarging) {
  const Tensor a = cast(image_a(), kFloat64);
  // Pillow computes in float32, so agreement is to float32's precision on values up to 255.
  const Tensor small = resize_bicubic(a, 4, 5);
  EXPECT_LT(max_abs_diff(small, expected(fixture::kShrink4, 4, 5)), 1e-4);
  EXPECT_LT(max_abs_diff(resize_bicubic(a, 7, 6), expected(fixture::kShrink7x6, 7, 6)), 1e-4);
  const Tensor small_f = expected(fixture::kShrink4, 4, 5);
  EXPECT_LT(max_abs_diff(resize_bicubic(small_f, 16, 20), expected(fixture::kEnlarge4, 16, 20)), 1e-4);
  EXPECT_LT(max_abs_diff(resize_bicubic(small_f, 11, 9), expected(fixture::kEnlarge11x9, 11, 9)), 1e-4);
}

TEST(ResizeBicubicTest, Uint8RoundsOnceAndBatchesGoImageByImage) {
  const Tensor a = image_a();
  const Tensor small = resize_bicubic(a, 4, 5);
  EXPECT_EQ(small.dtype(), kUInt8);
  // Pillow rounds to uint8 between its passes too: at most 1 apart.
  EXPECT_LE(max_abs_diff(small, expected(fixture::kShrink4Uint8, 4, 5)), 1.0);
  const Tensor batch = resize_bicubic(stack({a, image_b()}, 0), 4, 5);
  EXPECT_EQ(batch.shape(), (Shape{2, 4, 5, 3}));
  EXPECT_EQ(max_abs_diff(select(batch, 0, 0), small), 0.0);
}

TEST(ResizeBicubicTest, KeepsAConstantImageAndTheSameSize) {
  const Tensor flat = full({9, 7, 2}, 0.25);
  EXPECT_LT(max_abs_diff(resize_bicubic(flat, 3, 20), full({3, 20, 2}, 0.25)), 1e-12);
  const Tensor a = cast(image_a(), kFloat32);
  EXPECT_LT(max_abs_diff(resize_bicubic(a, 16, 20), a), 1e-4);  // weights 1 at the pixel, 0 at the others
}

TEST(ResizeBicubicTest, RefusesBadInput) {
  testing::expect_error([] { resize_bicubic(zeros({4, 4}), 2, 2); }, {"resize_bicubic", "rank 3"});
  testing::expect_error([] { resize_bicubic(zeros({4, 4, 1}), 0, 2); }, {"resize_bicubic", "0x2"});
}

TEST(ImageQualityTest, PsnrAndSsimMatchScikitImage) {
  const Tensor a = image_a(), b = image_b();
  EXPECT_NEAR(psnr(a, b, 255), fixture::kPsnr[0], 1e-9);
  EXPECT_NEAR(ssim(a, b, 255), fixture::kSsimRgb[0], 1e-9);
  // On the luma channel, as super-resolution papers report.
  const Tensor ya = rgb_to_luma(a), yb = rgb_to_luma(b);
  EXPECT_EQ(ya.shape(), (Shape{16, 20, 1}));
  EXPECT_LT(max_abs_diff(ya, expected(fixture::kLumaA, 16, 20, 1)), 1e-9);
  EXPECT_NEAR(ssim(ya, yb, 255), fixture::kSsimLuma[0], 1e-9);
}

TEST(ImageQualityTest, IdenticalImagesAndSimpleCases) {
  const Tensor a = image_a();
  EXPECT_TRUE(std::isinf(psnr(a, a, 255)));
  EXPECT_NEAR(ssim(a, a, 255), 1.0, 1e-12);
  // Every value off by 1 on a range of 1: MSE 1, PSNR 0 dB; off by 0.1: 20 dB.
  EXPECT_NEAR(psnr(zeros({3, 3}), full({3, 3}, 1.0), 1.0), 0.0, 1e-12);
  EXPECT_NEAR(psnr(zeros({3, 3}), full({3, 3}, 0.1), 1.0), 20.0, 1e-5);
}

TEST(ImageQualityTest, RefusesBadInput) {
  testing::expect_error([] { psnr(zeros({2, 2}), zeros({2, 3}), 1); }, {"psnr", "shape"});
  testing::expect_error([] { psnr(zeros({2, 2}), zeros({2, 2}), 0); }, {"psnr", "data_range"});
  testing::expect_error([] { ssim(zeros({10, 30, 1}), zeros({10, 30, 1}), 1); }, {"ssim", "11x11"});
  testing::expect_error([] { rgb_to_luma(zeros({4, 4, 2})); }, {"rgb_to_luma", "3 channels"});
}

}  // namespace
}  // namespace strata::data
