// Colour: HSV known values and round trips, hue and saturation identities, channel shifts, and
// per-image random draws on batches.
#include <gtest/gtest.h>

#include <cmath>

#include "support/max_abs_diff.hpp"
#include "strata/vision/color.hpp"
#include "strata/ops/combine.hpp"
#include "strata/ops/elementwise.hpp"
#include "strata/ops/shape.hpp"

using namespace strata;
using namespace strata::vision;

namespace {

Tensor pixel(double r, double g, double b, DType t = kFloat64) {
  return from_vector<double>({r, g, b}, {1, 1, 3}).to(t);
}

}  // namespace

TEST(Color, KnownHsvValues) {
  struct Case {
    double r, g, b, h, s, v;
  };
  const Case cases[] = {
      {1, 0, 0, 0, 1, 1},           {0, 1, 0, 1.0 / 3, 1, 1},   {0, 0, 1, 2.0 / 3, 1, 1},
      {1, 1, 0, 1.0 / 6, 1, 1},     {0, 1, 1, 0.5, 1, 1},       {1, 0, 1, 5.0 / 6, 1, 1},
      {1, 1, 1, 0, 0, 1},           {0, 0, 0, 0, 0, 0},         {0.5, 0.25, 0.25, 0, 0.5, 0.5},
      {0.2, 0.4, 0.6, 7.0 / 12, 2.0 / 3, 0.6},  // blue is the largest: (r - g) / range + 4 = 3.5 sixths
  };
  for (const Case& c : cases) {
    std::vector<double> hsv = rgb_to_hsv(pixel(c.r, c.g, c.b)).to_vector<double>();
    EXPECT_NEAR(hsv[0], c.h, 1e-12) << c.r << " " << c.g << " " << c.b;
    EXPECT_NEAR(hsv[1], c.s, 1e-12);
    EXPECT_NEAR(hsv[2], c.v, 1e-12);
    std::vector<double> rgb = hsv_to_rgb(from_vector<double>({c.h, c.s, c.v}, {1, 1, 3})).to_vector<double>();
    EXPECT_NEAR(rgb[0], c.r, 1e-12);
    EXPECT_NEAR(rgb[1], c.g, 1e-12);
    EXPECT_NEAR(rgb[2], c.b, 1e-12);
  }
  // uint8 is read as value / 255 and gives float32.
  Tensor u8 = rgb_to_hsv(pixel(255, 0, 0, kUInt8));
  EXPECT_EQ(u8.dtype(), kFloat32);
  EXPECT_EQ(u8.to_vector<float>(), (std::vector<float>{0, 1, 1}));
  EXPECT_NEAR(rgb_to_hsv(pixel(0, 51, 102, kUInt8)).to_vector<float>()[2], 0.4, 1e-6);
}

TEST(Color, RgbHsvRoundTrip) {
  Generator gen(11);
  Tensor img = rand({9, 7, 3}, kFloat64, &gen);
  EXPECT_LT(max_abs_diff(hsv_to_rgb(rgb_to_hsv(img)), img), 1e-12);
  Tensor f32 = rand({2, 5, 6, 3}, kFloat32, &gen);  // a batch works pixel by pixel
  Tensor back = hsv_to_rgb(rgb_to_hsv(f32));
  EXPECT_EQ(back.dtype(), kFloat32);
  EXPECT_LT(max_abs_diff(back, f32), 1e-6);
  EXPECT_THROW(rgb_to_hsv(rand({4, 4, 2})), Error);
  EXPECT_THROW(hsv_to_rgb(pixel(1, 2, 3, kUInt8)), Error);
  // A NaN hue gives NaN where it enters, not a read outside the sector table.
  std::vector<double> from_nan = hsv_to_rgb(pixel(NAN, 0.5, 1)).to_vector<double>();
  EXPECT_TRUE(std::isnan(from_nan[1]));
  EXPECT_THROW(adjust_hue(img, NAN), Error);
  EXPECT_THROW(adjust_saturation(img, -1), Error);
}

TEST(Color, HueShifts) {
  Generator gen(12);
  Tensor img = rand({6, 5, 3}, kFloat64, &gen);
  EXPECT_LT(max_abs_diff(adjust_hue(img, 1.0), img), 1e-12);  // a full turn
  EXPECT_LT(max_abs_diff(adjust_hue(img, -2.0), img), 1e-12);
  EXPECT_LT(max_abs_diff(adjust_hue(img, 0.0), img), 1e-12);
  EXPECT_LT(max_abs_diff(adjust_hue(adjust_hue(img, 0.3), -0.3), img), 1e-12);
  // A third of a turn takes red to green and green to blue.
  EXPECT_LT(max_abs_diff(adjust_hue(pixel(1, 0, 0), 1.0 / 3), pixel(0, 1, 0)), 1e-12);
  EXPECT_LT(max_abs_diff(adjust_hue(pixel(0, 0.5, 0), 1.0 / 3), pixel(0, 0, 0.5)), 1e-12);
  Tensor u8 = (rand({4, 4, 3}, kFloat32, &gen) * 255.0).to(kUInt8);
  Tensor u8_turned = adjust_hue(u8, 1.0);
  EXPECT_EQ(u8_turned.dtype(), kUInt8);
  EXPECT_EQ(max_abs_diff(u8_turned, u8), 0);
}

TEST(Color, Saturation) {
  Generator gen(13);
  Tensor img = rand({5, 4, 3}, kFloat64, &gen);
  std::vector<double> grey = adjust_saturation(img, 0).to_vector<double>(), in = img.to_vector<double>();
  for (size_t i = 0; i < grey.size(); i += 3) {
    EXPECT_EQ(grey[i], grey[i + 1]);
    EXPECT_EQ(grey[i], grey[i + 2]);
    EXPECT_NEAR(grey[i], std::max({in[i], in[i + 1], in[i + 2]}), 1e-12);  // the value is kept
  }
  EXPECT_LT(max_abs_diff(adjust_saturation(img, 1), img), 1e-12);
  // Half the saturation of (1, 0.5, 0): s 1 -> 0.5, so the minimum rises to 0.5.
  EXPECT_LT(max_abs_diff(adjust_saturation(pixel(1, 0.5, 0), 0.5), pixel(1, 0.75, 0.5)), 1e-12);
  // Saturation is clamped at 1.
  EXPECT_LT(max_abs_diff(adjust_saturation(pixel(1, 0.5, 0.5), 10), pixel(1, 0, 0)), 1e-12);
}

TEST(Color, ChannelShiftIsClampedToTheImageRange) {
  Tensor img = from_vector<float>({10, 20, 30, 40, 50, 60}, {1, 2, 3});
  EXPECT_EQ(channel_shift(img, 15).to_vector<float>(), (std::vector<float>{25, 35, 45, 55, 60, 60}));
  EXPECT_EQ(channel_shift(img, -25).to_vector<float>(), (std::vector<float>{10, 10, 10, 15, 25, 35}));
  // Each image of a batch keeps its own range.
  Tensor batch = stack({img, img + 100.0}, 0);
  std::vector<float> b = channel_shift(batch, 15).to_vector<float>();
  EXPECT_EQ(b[4], 60);
  EXPECT_EQ(b[10], 160);
  EXPECT_THROW(channel_shift(arange(6), 1), Error);
}

TEST(Color, RandomOnesDrawOncePerImage) {
  Generator data(14);
  Tensor img = rand({4, 4, 3}, kFloat64, &data);
  Tensor batch = stack({img, img, img}, 0);
  Generator g1(5), g2(5), g3(5);
  Tensor hue = random_hue(batch, 0.5, g1);
  ASSERT_EQ(hue.shape(), batch.shape());
  // The first image of the batch gets the first draw, as a single image would.
  EXPECT_EQ(max_abs_diff(select(hue, 0, 0), random_hue(img, 0.5, g2)), 0);
  EXPECT_GT(max_abs_diff(select(hue, 0, 0), select(hue, 0, 1)), 1e-3);  // its own draw per image
  EXPECT_EQ(max_abs_diff(random_hue(batch, 0.5, g3), hue), 0);        // seeded
  EXPECT_LT(max_abs_diff(random_hue(img, 0, g3), img), 1e-12);

  Generator g4(6);
  Tensor sat = random_saturation(batch, 0.0, 2.0, g4);
  EXPECT_GT(max_abs_diff(select(sat, 0, 0), select(sat, 0, 2)), 1e-3);
  for (int64_t n = 0; n < 3; ++n) {  // each is adjust_saturation by some factor: hue and value stay
    Tensor a = rgb_to_hsv(select(sat, 0, n)), b = rgb_to_hsv(img);
    EXPECT_LT(max_abs_diff(select(a, -1, 2), select(b, -1, 2)), 1e-12);
  }
  Generator g5(7);
  Tensor shifted = random_channel_shift(batch, 0.3, g5);
  std::vector<double> v = shifted.to_vector<double>(), in = batch.to_vector<double>();
  EXPECT_NE(v[0] - in[0], v[48] - in[48]);
  EXPECT_THROW(random_saturation(img, 2, 1, g5), Error);
}
