// detector_json / parse_detector_json (strata/vision/detector_description.hpp): a round trip, and
// descriptions from outside that are refused.
#include <gtest/gtest.h>

#include "strata/vision/detector_description.hpp"
#include "support/expect_error.hpp"

namespace strata::vision {
namespace detector_description_test {

TEST(DetectorDescription, RoundTrips) {
  YoloHead a{{{8, 9.5}, {20, 22}}, 2, 32, 1.05, 0.7, 0.07, 1.0};
  a.iou_thresh = 0.213;
  a.nms_kind = "diounms";
  YoloHead b{{{3, 4}}, 2, 16, 1.0, 0.5, 0.05, 0.5};
  const DetectorDescription d{128, 96, {a, b}, {"cat", "dog"}};
  const DetectorDescription r = parse_detector_json(detector_json(d));
  EXPECT_EQ(r.width, 128);
  EXPECT_EQ(r.height, 96);
  EXPECT_EQ(r.class_names, d.class_names);
  ASSERT_EQ(r.heads.size(), 2u);
  EXPECT_EQ(r.heads[0].anchors, a.anchors);
  EXPECT_EQ(r.heads[0].stride, 32);
  EXPECT_DOUBLE_EQ(r.heads[0].scale_x_y, 1.05);
  EXPECT_DOUBLE_EQ(r.heads[0].iou_thresh, 0.213);
  EXPECT_EQ(r.heads[0].nms_kind, "diounms");
  EXPECT_DOUBLE_EQ(r.heads[1].cls_normalizer, 0.5);
}

TEST(DetectorDescription, RefusesHostileText) {
  const std::string head = R"({"anchors": [[8, 9]], "classes": 1, "stride": 32, "scale_x_y": 1, "ignore_thresh": 0.7,
      "iou_normalizer": 0.07, "cls_normalizer": 1, "iou_thresh": 1, "beta_nms": 0.6, "nms_kind": "default"})";
  auto with = [&](const std::string& h, const std::string& classes = R"(["a"])") {
    return R"({"width": 64, "height": 64, "classes": )" + classes + R"(, "heads": [)" + h + "]}";
  };
  EXPECT_EQ(parse_detector_json(with(head)).heads.size(), 1u);
  testing::expect_error([] { parse_detector_json("[1, 2"); }, {"detector description", "not a JSON object"});
  testing::expect_error([] { parse_detector_json(std::string(70000, ' ')); }, {"detector description", "70000 bytes"});
  testing::expect_error([&] { parse_detector_json(with(head, R"(["a", "b"])")); }, {"1 classes but 2 names"});
  std::string bad = head;
  bad.replace(bad.find("[[8, 9]]"), 8, "[[8, -9]]");
  testing::expect_error([&] { parse_detector_json(with(bad)); }, {"anchor", "[8,-9]", "positive"});
  bad = head;
  bad.replace(bad.find("\"stride\": 32"), 12, "\"stride\": 0");
  testing::expect_error([&] { parse_detector_json(with(bad)); }, {"\"stride\" is 0", "[1, 65536]"});
  testing::expect_error([] { parse_detector_json(R"({"width": 64, "height": 64})"); }, {"has no \"classes\""});
}

}  // namespace detector_description_test
}  // namespace strata::vision
