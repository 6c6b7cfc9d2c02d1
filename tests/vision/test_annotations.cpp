// Boxes and key points follow the image: a filled rectangle is drawn, image and box transformed
// together, and the box compared with the bounding box of the rectangle's pixels in the result;
// a key point is compared with the centroid of a blob drawn around it.
#include <gtest/gtest.h>

#include <cmath>
#include <optional>

#include "support/max_abs_diff.hpp"
#include "strata/vision/annotations.hpp"

using namespace strata;
using namespace strata::vision;

namespace {

constexpr int64_t kH = 40, kW = 50;

// 1 inside the box's pixels (whole pixels: the box's edges are integers), 0 elsewhere.
Tensor filled(const Box& b) {
  std::vector<float> v(kH * kW, 0.0f);
  for (int64_t y = static_cast<int64_t>(b.y1); y < static_cast<int64_t>(b.y2); ++y)
    for (int64_t x = static_cast<int64_t>(b.x1); x < static_cast<int64_t>(b.x2); ++x) v[y * kW + x] = 1;
  return from_vector(v, {kH, kW, 1});
}

// Bounding box (edge coordinates) of the pixels above one half, or nothing if there are none.
std::optional<Box> lit_pixels(const Tensor& image) {
  const int64_t h = image.size(0), w = image.size(1);
  std::vector<double> v = image.to_vector<double>();
  std::optional<Box> box;
  for (int64_t y = 0; y < h; ++y)
    for (int64_t x = 0; x < w; ++x) {
      if (v[y * w + x] <= 0.5) continue;
      const Box px{static_cast<double>(x), static_cast<double>(y), x + 1.0, y + 1.0};
      if (!box) box = px;
      box->x1 = std::min(box->x1, px.x1), box->y1 = std::min(box->y1, px.y1);
      box->x2 = std::max(box->x2, px.x2), box->y2 = std::max(box->y2, px.y2);
    }
  return box;
}

void expect_box_follows(const AnnotatedImage& out, const char* what) {
  SCOPED_TRACE(what);
  ASSERT_EQ(out.boxes.size(), 1u);
  const std::optional<Box> lit = lit_pixels(out.image);
  ASSERT_TRUE(lit.has_value());
  const Box& b = out.boxes[0];
  EXPECT_NEAR(b.x1, lit->x1, 1.0);
  EXPECT_NEAR(b.y1, lit->y1, 1.0);
  EXPECT_NEAR(b.x2, lit->x2, 1.0);
  EXPECT_NEAR(b.y2, lit->y2, 1.0);
}

// A Gaussian blob centred on p, and the centroid of an image's values.
Tensor blob(Point p) {
  std::vector<float> v(kH * kW);
  for (int64_t y = 0; y < kH; ++y)
    for (int64_t x = 0; x < kW; ++x) {
      const double dx = x + 0.5 - p.x, dy = y + 0.5 - p.y;
      v[y * kW + x] = static_cast<float>(std::exp(-(dx * dx + dy * dy) / (2 * 1.5 * 1.5)));
    }
  return from_vector(v, {kH, kW, 1});
}
Point centroid(const Tensor& image) {
  const int64_t w = image.size(1);
  std::vector<double> v = image.to_vector<double>();
  double sx = 0, sy = 0, total = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    sx += v[i] * (static_cast<double>(i % w) + 0.5);
    sy += v[i] * (static_cast<double>(i / w) + 0.5);
    total += v[i];
  }
  return {sx / total, sy / total};
}

}  // namespace

TEST(Annotations, BoxesFollowFlipsAndQuarterTurns) {
  const Box box{7, 5, 20, 12};
  const AnnotatedImage in{filled(box), {box}, {}};
  expect_box_follows(flip_left_right(in), "flip_left_right");
  expect_box_follows(flip_up_down(in), "flip_up_down");
  for (int k : {1, 2, 3, -1}) expect_box_follows(rot90(in, k), ("rot90 " + std::to_string(k)).c_str());
  // Exact for these: whole pixels move to whole pixels.
  const Box f = flip_left_right(in).boxes[0];
  EXPECT_EQ(f.x1, kW - 20);
  EXPECT_EQ(f.x2, kW - 7);
  const AnnotatedImage r = rot90(in, 1);
  EXPECT_EQ(r.image.size(0), kW);
  const std::optional<Box> lit = lit_pixels(r.image);
  EXPECT_EQ(r.boxes[0].x1, lit->x1);
  EXPECT_EQ(r.boxes[0].y2, lit->y2);
}

TEST(Annotations, BoxesFollowAffineTransforms) {
  const Box box{12, 10, 30, 22};
  const AnnotatedImage in{filled(box), {box}, {}};
  expect_box_follows(affine_transform(in, Affine::rotation(30)), "rotation 30");
  expect_box_follows(affine_transform(in, Affine::rotation(-75)), "rotation -75");
  expect_box_follows(affine_transform(in, Affine::shift(6, -4)), "shift");
  expect_box_follows(affine_transform(in, Affine::zoom(1.3, 0.8)), "zoom");
  expect_box_follows(affine_transform(in, Affine::shear(15)), "shear");
  Generator gen(41);
  for (int i = 0; i < 5; ++i) {
    const Affine a = random_affine({.rotation_degrees = 40, .shift_x = 5, .shift_y = 5, .zoom = 0.2, .shear_degrees = 10}, gen);
    expect_box_follows(affine_transform(in, a), "random affine");
    expect_box_follows(affine_transform(in, a, Interpolation::nearest), "random affine, nearest");
  }
  expect_box_follows(central_crop(in, 30, 30), "central crop");
  Generator g1(42), g2(42);
  for (int i = 0; i < 5; ++i) {
    const AnnotatedImage cropped = random_crop(in, 28, 36, g1);
    expect_box_follows(cropped, "random crop");
    const std::optional<Box> lit = lit_pixels(cropped.image);  // whole-pixel offsets: exact
    EXPECT_EQ(cropped.boxes[0].x1, lit->x1);
    EXPECT_EQ(cropped.boxes[0].y2, lit->y2);
    EXPECT_EQ(max_abs_diff(cropped.image, random_crop(in.image, 28, 36, g2)), 0);  // the same window
  }
  expect_box_follows(resize(in, 60, 35), "resize");
}

TEST(Annotations, BoxesAreClippedAndKeptInOrder) {
  const Box box{40, 30, 48, 38};
  const AnnotatedImage in{filled(box), {box, Box{0, 0, 4, 4}}, {}};
  const AnnotatedImage out = affine_transform(in, Affine::shift(6, 0));
  ASSERT_EQ(out.boxes.size(), 2u);
  EXPECT_EQ(out.boxes[0].x2, kW);  // partly outside: clipped at the edge
  expect_box_follows(AnnotatedImage{out.image, {out.boxes[0]}, {}}, "clipped");
  const Box gone = affine_transform(in, Affine::shift(-20, 0)).boxes[1];
  EXPECT_TRUE(gone.empty());  // wholly outside: kept, but empty
  EXPECT_FALSE(out.boxes[1].empty());
  EXPECT_THROW(flip_left_right(AnnotatedImage{in.image, {Box{5, 5, 1, 9}}, {}}), Error);
}

TEST(Annotations, KeyPointsFollowTheImage) {
  const Point p{17.3, 14.6};
  const AnnotatedImage in{blob(p), {}, {p}};
  auto expect_follows = [](const AnnotatedImage& out, const char* what) {
    SCOPED_TRACE(what);
    ASSERT_EQ(out.points.size(), 1u);
    const Point c = centroid(out.image);
    EXPECT_NEAR(out.points[0].x, c.x, 0.25);
    EXPECT_NEAR(out.points[0].y, c.y, 0.25);
  };
  expect_follows(flip_left_right(in), "flip_left_right");
  expect_follows(flip_up_down(in), "flip_up_down");
  expect_follows(rot90(in, 1), "rot90");
  expect_follows(rot90(in, 3), "rot90 3");
  expect_follows(affine_transform(in, Affine::rotation(50)), "rotation");
  expect_follows(affine_transform(in, Affine::shift(3.5, -2.25) * Affine::zoom(1.2, 1.2)), "shift and zoom");
  expect_follows(resize(in, 80, 25), "resize");
  // transform_point is the inverse of the inverse.
  const Affine a = Affine::rotation(20) * Affine::shear(5);
  const Point q = transform_point(transform_point(p, a, kH, kW), a.inverse(), kH, kW);
  EXPECT_NEAR(q.x, p.x, 1e-12);
  EXPECT_NEAR(q.y, p.y, 1e-12);
}
