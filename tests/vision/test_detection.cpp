// letterbox and decode_yolo (strata/vision/detection.hpp) on inputs whose results are worked out
// here from darknet's formulas.
#include <gtest/gtest.h>

#include <cmath>

#include "strata/strata.hpp"
#include "strata/vision/detection.hpp"
#include "support/expect_error.hpp"

namespace strata::vision {
namespace detection_test {

TEST(Letterbox, FitsTheLongerSideAndPadsWithGrey) {
  // 40 wide, 20 high into 32 x 32: scale 0.8, 32 x 16 placed 8 rows down.
  const Tensor image = full({20, 40, 3}, 255, kUInt8);
  const LetterboxedImage lb = letterbox(image, 32, 32);
  ASSERT_EQ(lb.image.shape(), (Shape{32, 32, 3}));
  EXPECT_DOUBLE_EQ(lb.transform.scale_x, 0.8);
  EXPECT_DOUBLE_EQ(lb.transform.scale_y, 0.8);
  EXPECT_DOUBLE_EQ(lb.transform.top, 8);
  EXPECT_DOUBLE_EQ(lb.transform.left, 0);
  const std::vector<float> v = lb.image.to_vector<float>();
  EXPECT_FLOAT_EQ(v[(7 * 32 + 5) * 3], 0.5f);    // padding
  EXPECT_FLOAT_EQ(v[(8 * 32 + 5) * 3], 1.0f);    // the image, scaled to [0, 1]
  EXPECT_FLOAT_EQ(v[(24 * 32 + 5) * 3], 0.5f);
  const vision::Box box{10, 5, 30, 15};
  const vision::Box in = lb.transform.to_input(box);
  EXPECT_DOUBLE_EQ(in.x1, 8);
  EXPECT_DOUBLE_EQ(in.y1, 12);
  const vision::Box back = lb.transform.to_original(in);
  EXPECT_DOUBLE_EQ(back.x2, 30);
  EXPECT_DOUBLE_EQ(back.y2, 15);
  EXPECT_DOUBLE_EQ(lb.transform.to_original({-4, 0, 40, 40}).x1, 0);  // clipped to the image
  EXPECT_DOUBLE_EQ(lb.transform.to_original({-4, 0, 40, 40}).y2, 20);
}

TEST(Letterbox, PlacedAndRefused) {
  const LetterboxedImage lb = letterbox_at(full({10, 10, 1}, 0.25), 16, 16, 5, 8, 3, 2);
  EXPECT_DOUBLE_EQ(lb.transform.scale_x, 0.5);
  EXPECT_DOUBLE_EQ(lb.transform.scale_y, 0.8);
  EXPECT_FLOAT_EQ(lb.image.to_vector<float>()[2 * 16 + 3], 0.25f);
  EXPECT_FLOAT_EQ(lb.image.to_vector<float>()[2 * 16 + 8], 0.5f);
  testing::expect_error([] { letterbox_at(full({10, 10, 1}, 0.25), 16, 16, 8, 8, 9, 0); }, {"letterbox", "does not fit"});
  testing::expect_error([] { letterbox(zeros({10, 10}), 16, 16); }, {"letterbox", "HWC", "[10, 10]"});
}

double detection_test_sigmoid(double v) { return 1 / (1 + std::exp(-v)); }

TEST(DecodeYolo, DarknetsFormulasThresholdAndClasswiseNms) {
  // One head: grid 2 rows x 3 columns, 2 anchors, 2 classes, stride 8, scale_x_y 1.05.
  YoloHead head{{{10, 14}, {23, 27}}, 2, 8, 1.05};
  std::vector<float> raw(2 * 3 * 2 * 7, -10.0f);
  auto at = [&](int64_t cy, int64_t cx, int64_t a) { return raw.data() + ((cy * 3 + cx) * 2 + a) * 7; };
  float* p = at(1, 2, 1);  // a confident box of class 1
  const float q[7] = {0.3f, -0.4f, 0.2f, -0.1f, 3.0f, -2.0f, 2.5f};
  std::copy(q, q + 7, p);
  float* d = at(1, 1, 1);  // nearly the same box (shifted a cell), a bit less sure: suppressed
  const float r[7] = {0.3f + 8.0f * 0, -0.4f, 0.2f, -0.1f, 2.0f, -2.0f, 2.5f};
  std::copy(r, r + 7, d);
  float* o = at(0, 0, 0);  // class 0, far away, kept
  const float t[7] = {0.0f, 0.0f, 0.0f, 0.0f, 1.0f, 1.0f, -3.0f};
  std::copy(t, t + 7, o);
  const Tensor out = from_vector(raw, {1, 2, 3, 14});
  const auto dets = decode_yolo({out}, {head}, {.score_threshold = 0.25, .nms = {0.45}});
  ASSERT_EQ(dets.size(), 1u);
  ASSERT_EQ(dets[0].size(), 2u);
  const double s = 1.05;
  const double x = (detection_test_sigmoid(0.3) * s - (s - 1) / 2 + 2) * 8, y = (detection_test_sigmoid(-0.4) * s - (s - 1) / 2 + 1) * 8;
  const double w = std::exp(0.2) * 23, h = std::exp(-0.1) * 27;
  EXPECT_EQ(dets[0][0].label, 1);
  EXPECT_NEAR(dets[0][0].score, detection_test_sigmoid(3.0) * detection_test_sigmoid(2.5), 1e-6);
  EXPECT_NEAR(dets[0][0].box.x1, x - w / 2, 1e-4);
  EXPECT_NEAR(dets[0][0].box.y2, y + h / 2, 1e-4);
  EXPECT_EQ(dets[0][1].label, 0);
  EXPECT_NEAR(dets[0][1].score, detection_test_sigmoid(1.0) * detection_test_sigmoid(1.0), 1e-6);
  EXPECT_NEAR(dets[0][1].box.x1, (0.5 * s - (s - 1) / 2) * 8 - 5, 1e-4);
  // Raising the threshold above the second's score leaves the first.
  EXPECT_EQ(decode_yolo({out}, {head}, {.score_threshold = 0.6})[0].size(), 1u);
  // Without NMS (threshold 1) the duplicate stays.
  EXPECT_EQ(decode_yolo({out}, {head}, {.score_threshold = 0.25, .nms = {1.0}})[0].size(), 3u);
}

TEST(DecodeYolo, RefusesOutputsThatDoNotFitTheHead) {
  YoloHead head{{{10, 14}}, 2, 8, 1.0};
  testing::expect_error([&] { decode_yolo({zeros({1, 2, 2, 8})}, {head}); }, {"decode_yolo", "head 0", "[1, h, w, 7]"});
  testing::expect_error([&] { decode_yolo({}, {head}); }, {"decode_yolo", "0 outputs for 1 heads"});
}

}  // namespace detection_test
}  // namespace strata::vision
