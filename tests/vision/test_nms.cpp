// nms and batched_nms (strata/vision/nms.hpp) against a brute force written from the definition:
// a box is kept when no kept box of its class that comes before it (higher score, or equal score
// and lower index) overlaps it above the threshold.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "strata/strata.hpp"
#include "strata/vision/boxes.hpp"
#include "strata/vision/nms.hpp"
#include "support/expect_error.hpp"

namespace strata::vision {
namespace nms_test {

double nms_test_iou(const double* a, const double* b) {
  const double iw = std::min(a[2], b[2]) - std::max(a[0], b[0]), ih = std::min(a[3], b[3]) - std::max(a[1], b[1]);
  if (iw <= 0 || ih <= 0) return 0;
  return iw * ih / ((a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - iw * ih);
}

double nms_test_overlap(const double* a, const double* b, const NmsOptions& o) {
  const double u = nms_test_iou(a, b);
  if (o.kind == NmsKind::greedy) return u;
  const double cx = std::max(a[2], b[2]) - std::min(a[0], b[0]), cy = std::max(a[3], b[3]) - std::min(a[1], b[1]);
  const double dx = (a[0] + a[2] - b[0] - b[2]) / 2, dy = (a[1] + a[3] - b[1] - b[3]) / 2;
  return u - std::pow((dx * dx + dy * dy) / (cx * cx + cy * cy), o.beta);
}

std::vector<int64_t> nms_test_brute_force(const std::vector<double>& b, const std::vector<double>& s,
                                          const std::vector<int64_t>& c, const NmsOptions& o) {
  const size_t n = s.size();
  auto before = [&](size_t j, size_t i) { return s[j] > s[i] || (s[j] == s[i] && j < i); };
  // Rank by counting who comes before: a box's decision depends only on boxes of lower rank.
  std::vector<size_t> by_rank(n);
  for (size_t i = 0; i < n; ++i) {
    size_t rank = 0;
    for (size_t j = 0; j < n; ++j) rank += before(j, i);
    by_rank[rank] = i;
  }
  std::vector<char> keep(n, 0);
  std::vector<int64_t> out;
  for (size_t i : by_rank) {
    bool suppressed = false;
    for (size_t j = 0; j < n; ++j)
      if (keep[j] && before(j, i) && c[j] == c[i] && nms_test_overlap(&b[4 * j], &b[4 * i], o) > o.iou_threshold)
        suppressed = true;
    keep[i] = !suppressed;
    if (keep[i]) out.push_back(static_cast<int64_t>(i));
  }
  return out;
}

TEST(Nms, RandomClustersMatchTheBruteForce) {
  std::mt19937 rng(5);
  for (int trial = 0; trial < 40; ++trial) {
    const int64_t n = 1 + static_cast<int64_t>(rng() % 60);
    std::uniform_real_distribution<double> centre(0, 40), size(2, 12), jitter(-2, 2);
    std::vector<double> b, s;
    std::vector<int64_t> c;
    for (int64_t i = 0; i < n; ++i) {
      const double x = centre(rng) + jitter(rng), y = centre(rng) / 4 + jitter(rng), w = size(rng), h = size(rng);
      b.insert(b.end(), {x, y, x + w, y + h});
      s.push_back(std::round(std::uniform_real_distribution<double>(0, 1)(rng) * 10) / 10);  // ties are common
      c.push_back(static_cast<int64_t>(rng() % 3));
    }
    const Tensor boxes = from_vector(b, {n, 4}), scores = from_vector(s, {n}), classes = from_vector(c, {n});
    for (NmsOptions o : {NmsOptions{0.3}, NmsOptions{0.5}, NmsOptions{0.45, NmsKind::diou}, NmsOptions{0.2, NmsKind::diou, 1.0}}) {
      EXPECT_EQ(batched_nms(boxes, scores, classes, o).to_vector<int64_t>(), nms_test_brute_force(b, s, c, o));
      EXPECT_EQ(nms(boxes, scores, o).to_vector<int64_t>(), nms_test_brute_force(b, s, std::vector<int64_t>(n, 0), o));
    }
  }
}

// torchvision's documented semantics: IoU strictly above the threshold suppresses; the result is
// sorted by decreasing score.
TEST(Nms, TorchvisionSemanticsOnAWorkedExample) {
  // Boxes 0 and 1 overlap with IoU exactly 1/3 (2x2 boxes shifted by 1); box 2 is apart.
  const Tensor boxes = from_vector<float>({0, 0, 2, 2, 1, 0, 3, 2, 10, 10, 11, 11}, {3, 4});
  const Tensor scores = tensor({0.5f, 0.9f, 0.7f}, {3});
  EXPECT_EQ(nms(boxes, scores, {1.0 / 3.0}).to_vector<int64_t>(), (std::vector<int64_t>{1, 2, 0}));
  EXPECT_EQ(nms(boxes, scores, {0.3}).to_vector<int64_t>(), (std::vector<int64_t>{1, 2}));
  const Tensor classes = from_vector<int64_t>({0, 1, 0}, {3});
  EXPECT_EQ(batched_nms(boxes, scores, classes, {0.3}).to_vector<int64_t>(), (std::vector<int64_t>{1, 2, 0}));
  EXPECT_EQ(nms(zeros({0, 4}), zeros({0}), {}).numel(), 0);
}

// DIoU-NMS keeps a box whose IoU is over the threshold when its centre is far enough away.
TEST(Nms, DiouKeepsOverlappingBoxesWithDistantCentres) {
  const Tensor boxes = from_vector<float>({0, 0, 10, 10, 0, 4, 10, 14}, {2, 4});  // IoU 6/14, centres 4 apart
  const Tensor scores = tensor({0.9f, 0.8f}, {2});
  EXPECT_EQ(nms(boxes, scores, {0.4}).numel(), 1);
  EXPECT_EQ(nms(boxes, scores, {0.4, NmsKind::diou}).numel(), 2);  // 6/14 - (16/296)^0.6 < 0.4
}

TEST(Nms, RefusesMismatchedInputs) {
  testing::expect_error([] { nms(zeros({3, 4}), zeros({2}), {}); }, {"nms", "[3, 4]", "[2]"});
  testing::expect_error([] { batched_nms(zeros({3, 4}), zeros({3}), zeros({2}, kInt64), {}); }, {"batched_nms", "classes"});
  testing::expect_error([] { nms(zeros({1, 4}), full({1}, std::nan("")), {}); }, {"nms", "NaN"});
  testing::expect_error([] { nms(zeros({1, 4}), zeros({1}), {0.5, NmsKind::diou, 0}); }, {"nms", "beta"});
}

}  // namespace nms_test
}  // namespace strata::vision
