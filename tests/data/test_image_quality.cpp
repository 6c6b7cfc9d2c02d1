// psnr / ssim / rgb_to_luma against scikit-image (values in image_quality_fixture.hpp, written by
// make_image_quality_fixture.py; resize_bicubic's check of the same fixture is vision's,
// tests/vision/test_resize_bicubic.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "data/image_quality_fixture.hpp"
#include "data/image_quality_images.hpp"
#include "strata/strata.hpp"
#include "support/expect_error.hpp"
#include "support/max_abs_diff.hpp"

namespace strata::data {
namespace {

using fixture::expected;
using fixture::image_a;
using fixture::image_b;

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
