// part_mean_iou (strata/points/part_iou.hpp) on shapes whose IoUs are worked out by hand.
#include <gtest/gtest.h>

#include "strata/strata.hpp"
#include "strata/points/part_iou.hpp"

namespace strata::points {
namespace part_iou_test {

// One-hot logits [1, P, parts] that predict `parts_of_points`.
Tensor predicting(const std::vector<int64_t>& parts_of_points, int64_t parts) {
  std::vector<float> v;
  for (int64_t part : parts_of_points)
    for (int64_t k = 0; k < parts; ++k) v.push_back(k == part ? 1.0f : 0.0f);
  return from_vector(v, {1, static_cast<int64_t>(parts_of_points.size()), parts});
}

TEST(PartIou, ScoresEachShapeOverItsCategorysPartsOnly) {
  const std::vector<PartRange> ranges{{"mug", 0, 2}, {"lamp", 2, 3}};
  // A mug of 4 points: truth 0 0 1 1, predicted 0 1 1 1: part 0 IoU 1/2, part 1 IoU 2/3.
  const Tensor mug_logits = predicting({0, 1, 1, 1}, 5);
  // A lamp: truth 2 2 3 3; the logits favour part 0 (a mug's) for the last point, which the
  // restriction to the lamp's parts overrules: its best lamp part is 3. Part 4 is absent from
  // both: IoU 1. Parts 2 and 3: both exact.
  Tensor lamp_logits = predicting({2, 2, 3, 0}, 5);
  lamp_logits = lamp_logits + from_vector<float>({0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0.5f, 0}, {1, 4, 5});
  const PartIou r = part_mean_iou(concat({mug_logits, lamp_logits}, 0), from_vector<int64_t>({0, 0, 1, 1, 2, 2, 3, 3}, {2, 4}),
                                  from_vector<int64_t>({0, 1}, {2}), ranges);
  const double mug = (0.5 + 2.0 / 3.0) / 2, lamp = 1.0;
  EXPECT_NEAR(r.per_category[0], mug, 1e-12);
  EXPECT_NEAR(r.per_category[1], lamp, 1e-12);
  EXPECT_NEAR(r.instance_miou, (mug + lamp) / 2, 1e-12);
  EXPECT_NEAR(r.class_miou, (mug + lamp) / 2, 1e-12);
  EXPECT_EQ(r.predictions.to_vector<int64_t>(), (std::vector<int64_t>{0, 1, 1, 1, 2, 2, 3, 3}));
  EXPECT_THROW(part_mean_iou(mug_logits, from_vector<int64_t>({0, 0, 1, 1}, {1, 4}), from_vector<int64_t>({2}, {1}), ranges),
               Error);
}

}  // namespace part_iou_test
}  // namespace strata::points
