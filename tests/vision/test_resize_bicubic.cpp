// resize_bicubic against Pillow's float bicubic (fixture from tests/data's
// make_image_quality_fixture.py, shared with the image quality tests).
#include <gtest/gtest.h>

#include "data/image_quality_fixture.hpp"
#include "data/image_quality_images.hpp"
#include "strata/ops/combine.hpp"
#include "strata/ops/elementwise.hpp"
#include "strata/ops/shape.hpp"
#include "strata/vision/image.hpp"
#include "support/expect_error.hpp"
#include "support/max_abs_diff.hpp"

namespace strata::vision {
namespace {

TEST(ResizeBicubicTest, MatchesPillowWhenShrinkingAndEnlarging) {
  const Tensor a = cast(data::fixture::image_a(), kFloat64);
  // Pillow computes in float32, so agreement is to float32's precision on values up to 255.
  const Tensor small = resize_bicubic(a, 4, 5);
  EXPECT_LT(max_abs_diff(small, data::fixture::expected(data::fixture::kShrink4, 4, 5)), 1e-4);
  EXPECT_LT(max_abs_diff(resize_bicubic(a, 7, 6), data::fixture::expected(data::fixture::kShrink7x6, 7, 6)), 1e-4);
  const Tensor small_f = data::fixture::expected(data::fixture::kShrink4, 4, 5);
  EXPECT_LT(max_abs_diff(resize_bicubic(small_f, 16, 20), data::fixture::expected(data::fixture::kEnlarge4, 16, 20)),
            1e-4);
  EXPECT_LT(max_abs_diff(resize_bicubic(small_f, 11, 9), data::fixture::expected(data::fixture::kEnlarge11x9, 11, 9)),
            1e-4);
}

TEST(ResizeBicubicTest, Uint8RoundsOnceAndBatchesGoImageByImage) {
  const Tensor a = data::fixture::image_a();
  const Tensor small = resize_bicubic(a, 4, 5);
  EXPECT_EQ(small.dtype(), kUInt8);
  // Pillow rounds to uint8 between its passes too: at most 1 apart.
  EXPECT_LE(max_abs_diff(small, data::fixture::expected(data::fixture::kShrink4Uint8, 4, 5)), 1.0);
  const Tensor batch = resize_bicubic(stack({a, data::fixture::image_b()}, 0), 4, 5);
  EXPECT_EQ(batch.shape(), (Shape{2, 4, 5, 3}));
  EXPECT_EQ(max_abs_diff(select(batch, 0, 0), small), 0.0);
}

TEST(ResizeBicubicTest, KeepsAConstantImageAndTheSameSize) {
  const Tensor flat = full({9, 7, 2}, 0.25);
  EXPECT_LT(max_abs_diff(resize_bicubic(flat, 3, 20), full({3, 20, 2}, 0.25)), 1e-12);
  const Tensor a = cast(data::fixture::image_a(), kFloat32);
  EXPECT_LT(max_abs_diff(resize_bicubic(a, 16, 20), a), 1e-4);  // weights 1 at the pixel, 0 at the others
}

TEST(ResizeBicubicTest, RefusesBadInput) {
  testing::expect_error([] { resize_bicubic(zeros({4, 4}), 2, 2); }, {"resize_bicubic", "rank 3"});
  testing::expect_error([] { resize_bicubic(zeros({4, 4, 1}), 0, 2); }, {"resize_bicubic", "0x2"});
}

}  // namespace
}  // namespace strata::vision
