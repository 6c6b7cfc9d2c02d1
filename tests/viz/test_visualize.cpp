// Image grids and training-curve plots (data/visualize.hpp), read back from the PNG files they
// write and checked pixel by pixel where the layout says each thing must be.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "support/temp_dir.hpp"
#include "support/expect_error.hpp"
#include "strata/strata.hpp"
#include "strata/viz/visualize.hpp"

namespace strata::viz {
namespace {

class VisualizeTest : public strata::testing::TempDirTest {};

// The (r, g, b) or gray value of pixel (y, x) of a uint8 HWC image.
std::vector<int> pixel(const Tensor& img, int64_t y, int64_t x) {
  const int64_t w = img.shape()[1], c = img.shape()[2];
  std::vector<uint8_t> v = img.to_vector<uint8_t>();
  std::vector<int> out;
  for (int64_t k = 0; k < c; ++k) out.push_back(v[(y * w + x) * c + k]);
  return out;
}

std::vector<int> rgb(const std::vector<uint8_t>& c) { return {c[0], c[1], c[2]}; }

TEST_F(VisualizeTest, SaveImagesLaysOutAGridAndMapsValuesLikeTensorLayer) {
  // Five 2x3 RGB images, image k filled with k / 4 (floats in [0, 1]), in a 2 x 3 grid with a
  // 1-pixel gap: image k sits at row k / 3, column k % 3; the sixth cell stays black.
  std::vector<float> v;
  for (int k = 0; k < 5; ++k)
    for (int i = 0; i < 2 * 3 * 3; ++i) v.push_back(k / 4.0f);
  save_images(from_vector(v, {5, 2, 3, 3}), path("grid.png"), 2, 3, 1);
  Tensor img = data::read_image(path("grid.png"));
  ASSERT_EQ(img.shape(), (Shape{2 * 2 + 1, 3 * 3 + 2, 3}));
  for (int k = 0; k < 5; ++k) {
    const int want = static_cast<int>(std::lround(k / 4.0 * 255));
    const int64_t top = (k / 3) * 3, left = (k % 3) * 4;
    EXPECT_EQ(pixel(img, top, left), (std::vector<int>{want, want, want})) << "image " << k;
    EXPECT_EQ(pixel(img, top + 1, left + 2), (std::vector<int>{want, want, want})) << "image " << k;
  }
  EXPECT_EQ(pixel(img, 3, 8), (std::vector<int>{0, 0, 0}));   // the empty cell
  EXPECT_EQ(pixel(img, 2, 0), (std::vector<int>{0, 0, 0}));   // the gap between rows
}

TEST_F(VisualizeTest, GrayTanhRangeAndUint8Images) {
  // [-1, 1] (a tanh generator) maps to (x + 1) * 127.5; gray [N, H, W] gives one channel; the
  // default grid of 3 images is 2 x 2.
  Tensor tanh_out = tensor({-1.0f, 0.0f, 1.0f}, {3, 1, 1});
  Tensor g = image_grid(tanh_out);
  ASSERT_EQ(g.shape(), (Shape{2, 2, 1}));
  EXPECT_EQ(g.to_vector<uint8_t>(), (std::vector<uint8_t>{0, 128, 255, 0}));
  Tensor u8 = from_vector(std::vector<uint8_t>{7, 8, 9, 10, 11, 12}, {2, 1, 1, 3});
  save_images(u8, path("u8.png"), 1, 2);
  Tensor back = data::read_image(path("u8.png"));
  EXPECT_EQ(back.to_vector<uint8_t>(), u8.to_vector<uint8_t>());
}

TEST_F(VisualizeTest, GridErrors) {
  using strata::testing::expect_error;
  expect_error([] { image_grid(zeros({5, 2, 2, 1}), 2, 2); }, {"image_grid", "5 images", "2 x 2"});
  expect_error([] { image_grid(full({1, 2, 2, 1}, 1.5)); }, {"image_grid", "[0, 1] or [-1, 1]", "1.5"});
  expect_error([] { image_grid(zeros({1, 2, 2, 2})); }, {"image_grid", "1 or 3 channels", "2"});
  expect_error([] { image_grid(zeros({2, 2})); }, {"image_grid", "[N, H, W, C]"});
}

TEST_F(VisualizeTest, CurvesAreDrawnWhereTheirValuesSay) {
  // "loss" falls 4 -> 0 over 5 epochs, "val_loss" is flat at 2 with a NaN at epoch 2.
  const std::vector<double> loss = {4, 3, 2, 1, 0};
  const std::vector<double> val = {2, 2, NAN, 2, 2};
  PlotOptions o{.width = 200, .height = 120, .margin = 10};
  save_curves({{"loss", loss}, {"val_loss", val}}, path("curves.png"), o);
  Tensor img = data::read_image(path("curves.png"));
  ASSERT_EQ(img.shape(), (Shape{120, 200, 3}));
  // The plot area [10, 189] x [10, 109]; y spans [0 - 0.2, 4 + 0.2].
  auto x_of = [](int i) { return std::llround(10 + 179.0 * i / 4); };
  auto y_of = [](double v) { return std::llround(109 - 99.0 * (v + 0.2) / 4.4); };
  const std::vector<int> blue = rgb(curve_color(0)), orange = rgb(curve_color(1));
  EXPECT_EQ(pixel(img, y_of(4), x_of(0)), blue);   // loss's first point, top left
  EXPECT_EQ(pixel(img, y_of(0), x_of(4)), blue);   // its last, bottom right
  EXPECT_EQ(pixel(img, y_of(3.5), (x_of(0) + x_of(1)) / 2), blue);  // on the segment between
  EXPECT_EQ(pixel(img, y_of(2), x_of(0)), orange);  // val_loss, drawn after loss
  EXPECT_EQ(pixel(img, y_of(2), x_of(4) - 3), orange);
  EXPECT_NE(pixel(img, y_of(2), (x_of(1) + x_of(2)) / 2 + 3), orange);  // broken at the NaN
  EXPECT_EQ(pixel(img, 0, 0), (std::vector<int>{255, 255, 255}));        // background
  EXPECT_EQ(pixel(img, 9, 100), (std::vector<int>{0, 0, 0}));            // frame
  EXPECT_EQ(pixel(img, y_of(0.1), x_of(0) + 5), (std::vector<int>{255, 255, 255}));  // empty plot area
}

TEST_F(VisualizeTest, CurveErrors) {
  using strata::testing::expect_error;
  expect_error([] { plot_curves({}); }, {"plot_curves", "no series"});
  expect_error([] { plot_curves({{"loss", {NAN}}}); }, {"plot_curves", "no finite value"});
  expect_error([] { plot_curves({{"loss", {1.0}}}, {.width = 20, .height = 20, .margin = 10}); },
               {"plot_curves", "no room"});
}

TEST_F(VisualizeTest, DrawBoxesOutlinesEachBoxInItsClassColour) {
  // A 1-pixel outline of (2, 1)-(6, 4) in class 3's colour and a clipped box in class 0's.
  Tensor img = zeros({8, 10, 3}, kUInt8);
  Tensor out = draw_boxes(img, tensor({2.0, 1.0, 6.0, 4.0, 8.0, 6.0, 20.0, 20.0}, {2, 4}), {3, 0}, 1);
  data::write_image(path("boxes.png"), out);
  Tensor back = data::read_image(path("boxes.png"));
  const std::vector<int> red = rgb(curve_color(3)), blue = rgb(curve_color(0)), black = {0, 0, 0};
  for (auto [y, x] : std::vector<std::pair<int, int>>{{1, 2}, {1, 6}, {4, 2}, {4, 6}, {1, 4}, {3, 2}, {3, 6}})
    EXPECT_EQ(pixel(back, y, x), red) << y << ", " << x;
  EXPECT_EQ(pixel(back, 2, 4), black);  // inside
  EXPECT_EQ(pixel(back, 0, 4), black);  // outside
  EXPECT_EQ(pixel(back, 6, 8), blue);   // the clipped box's corner
  EXPECT_EQ(pixel(back, 7, 8), blue);   // its left edge, down to the image's bottom
  EXPECT_EQ(pixel(back, 7, 9), black);  // its inside (its right and bottom edges are off the image)
  EXPECT_EQ(img.to_vector<uint8_t>(), std::vector<uint8_t>(8 * 10 * 3, 0));  // the input is untouched
  // Normalised coordinates on a gray image: the whole image's border, in the colour's luma.
  Tensor gray = draw_boxes(zeros({5, 5, 1}, kUInt8), tensor({0.0, 0.0, 1.0, 1.0}, {1, 4}), {}, 1, true);
  const std::vector<uint8_t> c0 = curve_color(0);
  const int luma = static_cast<int>(std::lround(0.299 * c0[0] + 0.587 * c0[1] + 0.114 * c0[2]));
  EXPECT_EQ(pixel(gray, 4, 4), std::vector<int>{luma});
  EXPECT_EQ(pixel(gray, 0, 2), std::vector<int>{luma});
  EXPECT_EQ(pixel(gray, 2, 2), std::vector<int>{0});
}

TEST_F(VisualizeTest, DrawBoxesWritesEachLabelOnATabAboveItsBox) {
  // Box (2, 20)-(30, 35) labelled "A": a tab of the box's colour over rows 6..19 (14 pixels
  // above the top edge) and columns 2..10 (one 7-pixel glyph and a pixel each side), the letter
  // in white on blue. An "A" is inked at the top centre (its apex) and at both bottom corners
  // (its legs), not in the middle of its bottom row.
  Tensor out = draw_boxes(zeros({40, 40, 3}, kUInt8), tensor({2.0, 20.0, 30.0, 35.0}, {1, 4}), {0}, 1, false, {"A"});
  const std::vector<int> blue = rgb(curve_color(0)), white = {255, 255, 255}, black = {0, 0, 0};
  EXPECT_EQ(pixel(out, 6, 2), blue);    // the tab's corners
  EXPECT_EQ(pixel(out, 19, 10), blue);
  EXPECT_EQ(pixel(out, 6, 11), black);  // beside the tab
  EXPECT_EQ(pixel(out, 5, 5), black);   // above it
  const int top = 6, left = 3;          // the glyph's cell
  EXPECT_EQ(pixel(out, top + 2, left + 3), white);  // apex
  EXPECT_EQ(pixel(out, top + 10, left + 0), white);  // left leg
  EXPECT_EQ(pixel(out, top + 10, left + 6), white);  // right leg
  EXPECT_EQ(pixel(out, top + 10, left + 3), blue);   // between the legs
  EXPECT_EQ(pixel(out, top + 2, left + 0), blue);    // beside the apex
  // A box at the image's top gets its tab inside; an empty label draws nothing.
  Tensor top_box = draw_boxes(zeros({40, 40, 3}, kUInt8), tensor({0.0, 0.0, 30.0, 30.0, 5.0, 20.0, 9.0, 25.0}, {2, 4}),
                              {2, 1}, 1, false, {"xy", ""});
  EXPECT_EQ(pixel(top_box, 13, 1), rgb(curve_color(2)));  // inside the box, under its top edge
  EXPECT_EQ(pixel(top_box, 19, 7), black);                 // no tab above the unlabelled box
}

TEST_F(VisualizeTest, CurvesNameTheirSeriesInTheMargin) {
  // With the default 20-pixel margin, the names sit in the top margin in their colours, in
  // order, and the y range in black on the right; the plot itself is unchanged.
  Tensor img = plot_curves({{"loss", {4, 3, 2}}, {"val", {3, 3, 3}}}, {.width = 300, .height = 120});
  const std::vector<uint8_t> px = img.to_vector<uint8_t>();
  auto count = [&](const std::vector<int>& colour, int64_t x0, int64_t x1) {  // in rows 0..18
    int n = 0;
    for (int64_t y = 0; y < 19; ++y)
      for (int64_t x = x0; x < x1; ++x) {
        const uint8_t* p = px.data() + (y * 300 + x) * 3;
        n += std::vector<int>{p[0], p[1], p[2]} == colour;
      }
    return n;
  };
  const std::vector<int> blue = rgb(curve_color(0)), orange = rgb(curve_color(1)), black = {0, 0, 0};
  const int64_t loss_end = 20 + 4 * 7, val_start = loss_end + 2 * 7;
  EXPECT_GT(count(blue, 20, loss_end), 10);
  EXPECT_EQ(count(orange, 20, loss_end), 0);
  EXPECT_GT(count(orange, val_start, val_start + 3 * 7), 10);
  EXPECT_EQ(count(blue, val_start, 300), 0);
  EXPECT_GT(count(black, 150, 280), 20);  // "y 2 .. 4"
  EXPECT_EQ(count(black, 0, 20), 0);      // the left margin is empty
}

TEST_F(VisualizeTest, DrawBoxesErrors) {
  using strata::testing::expect_error;
  Tensor img = zeros({4, 4, 3}, kUInt8);
  expect_error([&] { draw_boxes(img, tensor({3.0, 0.0, 1.0, 2.0}, {1, 4})); }, {"draw_boxes", "box 0", "x_min <= x_max"});
  expect_error([&] { draw_boxes(img, zeros({2, 3})); }, {"draw_boxes", "[K, 4]", "[2, 3]"});
  expect_error([&] { draw_boxes(img, zeros({2, 4}), {1}); }, {"draw_boxes", "1 classes for 2 boxes"});
  expect_error([&] { draw_boxes(img, zeros({2, 4}), {}, 1, false, {"a"}); }, {"draw_boxes", "1 labels for 2 boxes"});
  expect_error([&] { draw_boxes(zeros({4, 4, 3}), zeros({1, 4})); }, {"draw_boxes", "uint8 image", "float32 [4, 4, 3]"});
}

}  // namespace
}  // namespace strata::viz
