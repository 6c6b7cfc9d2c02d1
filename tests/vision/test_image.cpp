// Image preprocessing: geometric identities (flips, rotations, affine maps and their inverses)
// and values checked on small images whose pixels are known.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "support/max_abs_diff.hpp"
#include "strata/vision/image.hpp"
#include "strata/ops/combine.hpp"
#include "strata/ops/elementwise.hpp"
#include "strata/ops/shape.hpp"

using namespace strata;
using namespace strata::vision;

namespace {

// Pixel (y, x, c) = 100 y + 10 x + c: every value says where it came from.
Tensor coded(int64_t h, int64_t w, int64_t c, DType dtype = kFloat32) {
  std::vector<float> v;
  for (int64_t y = 0; y < h; ++y)
    for (int64_t x = 0; x < w; ++x)
      for (int64_t k = 0; k < c; ++k) v.push_back(static_cast<float>(100 * y + 10 * x + k));
  return from_vector(v, {h, w, c}).to(dtype);
}

// A smooth image, for resampling that should lose little.
Tensor smooth(int64_t h, int64_t w) {
  std::vector<float> v;
  for (int64_t y = 0; y < h; ++y)
    for (int64_t x = 0; x < w; ++x) v.push_back(std::sin(0.2f * x) + std::cos(0.15f * y));
  return from_vector(v, {h, w, 1});
}

float px(const Tensor& t, int64_t y, int64_t x, int64_t c = 0) {
  return static_cast<float>(contiguous(t).to_vector<double>()[(y * t.size(1) + x) * t.size(2) + c]);
}

}  // namespace

TEST(Image, TwoFlipsGiveBackTheImage) {
  for (DType t : {kFloat32, kUInt8}) {
    Tensor img = coded(3, 4, 2, t);
    EXPECT_EQ(max_abs_diff(flip_left_right(flip_left_right(img)), img), 0);
    EXPECT_EQ(max_abs_diff(flip_up_down(flip_up_down(img)), img), 0);
  }
  Tensor img = coded(3, 4, 2);
  EXPECT_EQ(px(flip_left_right(img), 1, 0, 1), 100 + 30 + 1);
  EXPECT_EQ(px(flip_up_down(img), 0, 1, 0), 200 + 10);
  // A batch flips each image.
  Tensor batch = stack({img, img}, 0);
  EXPECT_EQ(max_abs_diff(select(flip_left_right(batch), 0, 1), flip_left_right(img)), 0);
}

TEST(Image, Rot90IsTransposeThenFlip) {
  Tensor img = coded(3, 5, 2);
  Tensor r = rot90(img);
  ASSERT_EQ(r.shape(), Shape({5, 3, 2}));
  EXPECT_EQ(max_abs_diff(r, flip_up_down(transpose(img, 0, 1))), 0);
  // Counter-clockwise: the top-right corner moves to the top-left.
  EXPECT_EQ(px(r, 0, 0), px(img, 0, 4));
  EXPECT_EQ(max_abs_diff(rot90(img, 2), flip_up_down(flip_left_right(img))), 0);
  EXPECT_EQ(max_abs_diff(rot90(rot90(img, 3), 1), img), 0);
  EXPECT_EQ(max_abs_diff(rot90(img, -1), rot90(img, 3)), 0);
}

TEST(Image, Crops) {
  Tensor img = coded(6, 8, 3);
  Tensor c = central_crop(img, 2, 4);
  ASSERT_EQ(c.shape(), Shape({2, 4, 3}));
  EXPECT_EQ(px(c, 0, 0, 2), 200 + 20 + 2);
  Generator gen(1);
  for (int i = 0; i < 20; ++i) {
    Tensor r = random_crop(img, 3, 3, gen);
    ASSERT_EQ(r.shape(), Shape({3, 3, 3}));
    const float corner = px(r, 0, 0);
    const int64_t y = static_cast<int64_t>(corner) / 100, x = (static_cast<int64_t>(corner) % 100) / 10;
    EXPECT_LE(y, 3);
    EXPECT_LE(x, 5);
    EXPECT_EQ(px(r, 2, 2), px(img, y + 2, x + 2));  // a contiguous window of the image
  }
  Generator g1(9), g2(9);
  EXPECT_EQ(max_abs_diff(random_crop(img, 4, 4, g1), random_crop(img, 4, 4, g2)), 0);
  EXPECT_THROW(central_crop(img, 7, 2), Error);
}

TEST(Image, Resize) {
  Tensor img = coded(2, 2, 1);
  Tensor up = resize(img, 4, 4, Interpolation::nearest);
  EXPECT_EQ(up.to_vector<float>(), (std::vector<float>{0, 0, 10, 10, 0, 0, 10, 10, 100, 100, 110, 110, 100, 100, 110, 110}));
  Tensor bi = resize(img, 4, 4);
  // Pixel centres aligned: output x = 1 samples input x = 0.25.
  EXPECT_NEAR(px(bi, 0, 1), 2.5, 1e-5);
  EXPECT_NEAR(px(bi, 0, 0), 0, 1e-5);
  EXPECT_NEAR(px(bi, 3, 3), 110, 1e-5);
  EXPECT_EQ(max_abs_diff(resize(img, 2, 2), img), 0);
  Tensor s = smooth(20, 24);
  // Half a pixel at the border is clamped; the interior comes back almost exactly.
  EXPECT_LT(max_abs_diff(central_crop(resize(resize(s, 40, 48), 20, 24), 16, 20), central_crop(s, 16, 20)), 0.01);
  Tensor u8 = resize(coded(2, 2, 1, kUInt8), 3, 5);
  EXPECT_EQ(u8.dtype(), kUInt8);
  EXPECT_EQ(u8.shape(), Shape({3, 5, 1}));
}

TEST(Image, PixelValueAdjustments) {
  Tensor img = from_vector<float>({0, 10, 20, 30}, {2, 2, 1});
  EXPECT_EQ(adjust_brightness(img, 5).to_vector<float>(), (std::vector<float>{5, 15, 25, 35}));
  EXPECT_EQ(adjust_contrast(img, 2).to_vector<float>(), (std::vector<float>{-15, 5, 25, 45}));
  Tensor u8 = from_vector<uint8_t>({0, 100, 250, 255}, {2, 2, 1});
  EXPECT_EQ(adjust_brightness(u8, 10).to_vector<uint8_t>(), (std::vector<uint8_t>{10, 110, 255, 255}));
  Tensor n = samplewise_normalize(u8);
  EXPECT_EQ(n.dtype(), kFloat32);
  std::vector<double> v = n.to_vector<double>();
  double mean = 0, sq = 0;
  for (double x : v) mean += x / 4;
  for (double x : v) sq += (x - mean) * (x - mean) / 4;
  EXPECT_NEAR(mean, 0, 1e-6);
  EXPECT_NEAR(sq, 1, 1e-5);
  EXPECT_THROW(adjust_brightness(arange(4), 1), Error);
}

TEST(Image, IdentityAffineReturnsTheImage) {
  for (DType t : {kFloat32, kFloat64, kUInt8}) {
    Tensor img = coded(5, 7, 3, t);
    EXPECT_EQ(max_abs_diff(affine_transform(img, Affine::identity()), img), 0);
    EXPECT_EQ(max_abs_diff(affine_transform(img, Affine::identity(), Interpolation::nearest), img), 0);
  }
}

TEST(Image, AffineMatricesMoveTheContent) {
  Tensor img = coded(5, 5, 1);
  // A 90-degree rotation about the centre is rot90; a shift moves content right and down.
  EXPECT_LT(max_abs_diff(affine_transform(img, Affine::rotation(90)), rot90(img)), 1e-3);
  Tensor shifted = affine_transform(img, Affine::shift(2, 1), Interpolation::bilinear, -1);
  EXPECT_EQ(px(shifted, 3, 4), px(img, 2, 2));
  EXPECT_EQ(px(shifted, 0, 0), -1);
  // One combined pass equals two passes where nothing falls outside.
  Tensor s = smooth(24, 24);
  Affine a = Affine::rotation(20) * Affine::shear(10);
  Tensor once = affine_transform(s, a);
  Tensor twice = affine_transform(affine_transform(s, Affine::shear(10)), Affine::rotation(20));
  EXPECT_LT(max_abs_diff(central_crop(once, 8, 8), central_crop(twice, 8, 8)), 0.05);
}

TEST(Image, ZoomThenInverseZoomIsCloseToTheOriginal) {
  Tensor s = smooth(32, 32);
  Affine zoom = Affine::zoom(1.25, 1.25);
  Tensor back = affine_transform(affine_transform(s, zoom), zoom.inverse());
  // The border went outside the frame during the zoom; the middle survives.
  EXPECT_LT(max_abs_diff(central_crop(back, 20, 20), central_crop(s, 20, 20)), 0.03);
  Affine inv = zoom * zoom.inverse();
  EXPECT_NEAR(inv.a, 1, 1e-12);
  EXPECT_NEAR(inv.b, 0, 1e-12);
  Generator gen(3);
  Affine r = random_affine({.rotation_degrees = 30, .shift_x = 2, .shift_y = 2, .zoom = 0.1, .shear_degrees = 5}, gen);
  Affine id = r * r.inverse();
  EXPECT_NEAR(id.a, 1, 1e-9);
  EXPECT_NEAR(id.c, 0, 1e-9);
  EXPECT_NEAR(id.e, 1, 1e-9);
  EXPECT_THROW(Affine::zoom(0, 1).inverse(), Error);
}

TEST(Image, BatchesGoImageByImage) {
  Tensor a = coded(6, 8, 3), b = smooth(6, 8) * 50.0;
  b = concat({b, b, b}, 2);
  Tensor batch = stack({a, b}, 0);
  // Deterministic functions: each image of the result is the function of that image (statistics
  // such as contrast's channel means are the image's own).
  const std::vector<std::pair<const char*, std::function<Tensor(const Tensor&)>>> fns = {
      {"central_crop", [](const Tensor& x) { return central_crop(x, 4, 5); }},
      {"resize", [](const Tensor& x) { return resize(x, 9, 4); }},
      {"adjust_brightness", [](const Tensor& x) { return adjust_brightness(x, 3); }},
      {"adjust_contrast", [](const Tensor& x) { return adjust_contrast(x, 1.5); }},
      {"samplewise_normalize", [](const Tensor& x) { return samplewise_normalize(x); }},
      {"affine_transform", [](const Tensor& x) { return affine_transform(x, Affine::rotation(25)); }},
  };
  for (const auto& [name, fn] : fns) {
    SCOPED_TRACE(name);
    Tensor out = fn(batch);
    ASSERT_EQ(out.dim(), 4);
    EXPECT_EQ(max_abs_diff(select(out, 0, 0), fn(a)), 0);
    EXPECT_EQ(max_abs_diff(select(out, 0, 1), fn(b)), 0);
  }
  // Random ones draw per image, in order: image 0 gets what a single image gets.
  Tensor same = stack({a, a, a}, 0);
  const AffineRanges ranges{.rotation_degrees = 30, .shift_x = 2, .zoom = 0.1};
  Generator g1(3), g2(3), g3(4), g4(4);
  Tensor crops = random_crop(same, 3, 3, g1);
  EXPECT_EQ(max_abs_diff(select(crops, 0, 0), random_crop(a, 3, 3, g2)), 0);
  Tensor moved = random_affine_transform(same, ranges, g3);
  EXPECT_EQ(max_abs_diff(select(moved, 0, 0), affine_transform(a, random_affine(ranges, g4))), 0);
  EXPECT_GT(max_abs_diff(select(moved, 0, 0), select(moved, 0, 1)), 1e-3);
  Generator g5(5);
  bool crops_differ = false;
  for (int i = 0; i < 5 && !crops_differ; ++i) {
    Tensor c = random_crop(same, 3, 3, g5);
    crops_differ = max_abs_diff(select(c, 0, 0), select(c, 0, 1)) > 0 || max_abs_diff(select(c, 0, 1), select(c, 0, 2)) > 0;
  }
  EXPECT_TRUE(crops_differ);
  EXPECT_THROW(central_crop(zeros({0, 4, 4, 1}), 2, 2), Error);
}
