// synthetic_detection (strata/vision/synthetic_detection.hpp): deterministic, balanced, boxes
// that fit the objects' pixels and the occlusion bound.
#include <gtest/gtest.h>

#include "strata/strata.hpp"
#include "strata/vision/synthetic_detection.hpp"
#include "support/expect_error.hpp"

namespace strata::vision {
namespace synthetic_detection_test {

TEST(SyntheticDetection, DeterministicFromSeedAndIndex) {
  const data::Dataset a = synthetic_detection(20, 3), b = synthetic_detection(20, 3), c = synthetic_detection(20, 4);
  for (int64_t i : {0, 7, 19}) {
    const data::Example x = a.get(i), y = b.get(i), z = c.get(i);
    EXPECT_EQ(x[0].to_vector<float>(), y[0].to_vector<float>());
    EXPECT_EQ(x[1].to_vector<float>(), y[1].to_vector<float>());
    EXPECT_NE(x[0].to_vector<float>(), z[0].to_vector<float>());
  }
  EXPECT_NE(a.get(1)[0].to_vector<float>(), a.get(2)[0].to_vector<float>());
}

TEST(SyntheticDetection, BoxesClassesSizesAndOcclusion) {
  const SyntheticDetectionOptions o{.image_size = 96, .max_objects = 5};
  const data::Dataset set = synthetic_detection(200, 1, o);
  std::vector<int64_t> per_class(5, 0);
  int64_t objects = 0;
  for (int64_t i = 0; i < set.size(); ++i) {
    const data::Example e = set.get(i);
    ASSERT_EQ(e[0].shape(), (Shape{96, 96, 3}));
    ASSERT_EQ(e[1].shape(), (Shape{5, 4}));
    const std::vector<float> px = e[0].to_vector<float>();
    EXPECT_GE(*std::min_element(px.begin(), px.end()), 0.0f);
    EXPECT_LE(*std::max_element(px.begin(), px.end()), 1.0f);
    const std::vector<LabeledBox> boxes = labeled_boxes(e[1], e[2]);
    ASSERT_GE(boxes.size(), 1u);
    for (size_t k = 0; k < boxes.size(); ++k) {
      const vision::Box& b = boxes[k].box;
      ++per_class[boxes[k].label], ++objects;
      EXPECT_TRUE(b.x1 >= 0 && b.y1 >= 0 && b.x2 <= 96 && b.y2 <= 96 && !b.empty());
      // The larger side within the size range, give or take the shapes' pixel rounding.
      const double side = std::max(b.x2 - b.x1, b.y2 - b.y1);
      EXPECT_GE(side, o.min_size * 96 * 0.7);
      EXPECT_LE(side, o.max_size * 96 + 2);
      for (size_t j = k + 1; j < boxes.size(); ++j) {  // later objects hide at most ~40% of earlier boxes
        const vision::Box& c = boxes[j].box;
        const double iw = std::max(0.0, std::min(b.x2, c.x2) - std::max(b.x1, c.x1));
        const double ih = std::max(0.0, std::min(b.y2, c.y2) - std::max(b.y1, c.y1));
        EXPECT_LE(iw * ih / ((b.x2 - b.x1) * (b.y2 - b.y1)), o.max_occlusion + 0.15);
      }
    }
  }
  EXPECT_GT(objects, 200 * 2);  // several objects per image on average
  for (int64_t count : per_class) EXPECT_GT(count, objects / 10);
  EXPECT_EQ(synthetic_detection_classes().size(), 5u);
}

TEST(SyntheticDetection, RefusesBadOptions) {
  testing::expect_error([] { synthetic_detection(4, 1, {.image_size = 8}); }, {"synthetic_detection", "image_size"});
  testing::expect_error([] { synthetic_detection(4, 1, {.min_objects = 5, .max_objects = 2}); }, {"synthetic_detection", "min_objects"});
  testing::expect_error([] { labeled_boxes(zeros({3, 4}), zeros({2}, kInt64)); }, {"labeled_boxes", "[3, 4]"});
}

}  // namespace synthetic_detection_test
}  // namespace strata::vision
