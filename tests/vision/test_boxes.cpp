// The IoU family (strata/vision/boxes.hpp) against a scalar computation written here, and their
// gradients against finite differences.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <random>

#include "strata/autograd/gradcheck.hpp"
#include "strata/strata.hpp"
#include "strata/vision/boxes.hpp"
#include "support/expect_error.hpp"

namespace strata::vision {
namespace boxes_test {

// The formulas of the papers, on doubles (alpha_fixed >= 0 replaces CIoU's alpha).
double scalar_overlap(const double* a, const double* b, IouKind kind, double alpha_fixed = -1) {
  const double aw = a[2] - a[0], ah = a[3] - a[1], bw = b[2] - b[0], bh = b[3] - b[1];
  const double iw = std::max(0.0, std::min(a[2], b[2]) - std::max(a[0], b[0]));
  const double ih = std::max(0.0, std::min(a[3], b[3]) - std::max(a[1], b[1]));
  const double inter = iw * ih, uni = aw * ah + bw * bh - inter, u = inter / uni;
  const double cw = std::max(a[2], b[2]) - std::min(a[0], b[0]), ch = std::max(a[3], b[3]) - std::min(a[1], b[1]);
  if (kind == IouKind::iou) return u;
  if (kind == IouKind::giou) return u - (cw * ch - uni) / (cw * ch);
  const double dx = (a[0] + a[2]) / 2 - (b[0] + b[2]) / 2, dy = (a[1] + a[3]) / 2 - (b[1] + b[3]) / 2;
  const double d = u - (dx * dx + dy * dy) / (cw * cw + ch * ch);
  if (kind == IouKind::diou) return d;
  const double v = 4 / (std::numbers::pi * std::numbers::pi) * std::pow(std::atan(bw / bh) - std::atan(aw / ah), 2);
  const double alpha = alpha_fixed >= 0 ? alpha_fixed : v / (1 - u + v);
  return d - alpha * v;
}

// n random boxes [n, 4] in float64, corners in [0, 10], widths and heights in [0.5, 5].
Tensor random_boxes(int64_t n, std::mt19937& rng) {
  std::uniform_real_distribution<double> corner(0, 10), size(0.5, 5);
  std::vector<double> v;
  for (int64_t i = 0; i < n; ++i) {
    const double x = corner(rng), y = corner(rng);
    v.insert(v.end(), {x, y, x + size(rng), y + size(rng)});
  }
  return from_vector(v, {n, 4});
}

constexpr IouKind kBoxesTestKinds[] = {IouKind::iou, IouKind::giou, IouKind::diou, IouKind::ciou};

TEST(BoxIou, EveryKindMatchesTheScalarFormulaPairwise) {
  std::mt19937 rng(7);
  const Tensor a = random_boxes(6, rng), b = random_boxes(5, rng);
  const std::vector<double> av = a.to_vector<double>(), bv = b.to_vector<double>();
  for (IouKind kind : kBoxesTestKinds) {
    const std::vector<double> got = pairwise_box_iou(a, b, kind, 0).to_vector<double>();
    ASSERT_EQ(got.size(), 30u);
    for (int i = 0; i < 6; ++i)
      for (int j = 0; j < 5; ++j)
        EXPECT_NEAR(got[i * 5 + j], scalar_overlap(&av[4 * i], &bv[4 * j], kind), 1e-12) << static_cast<int>(kind);
  }
}

TEST(BoxIou, KnownValuesAndSingleBoxes) {
  const Tensor a = tensor({0.0, 0.0, 2.0, 2.0}, {4}), b = tensor({1.0, 1.0, 3.0, 3.0}, {4});
  EXPECT_NEAR(box_iou(a, b).item_double(), 1.0 / 7.0, 1e-9);
  EXPECT_NEAR(box_iou(a, b, IouKind::giou).item_double(), 1.0 / 7.0 - 2.0 / 9.0, 1e-9);
  EXPECT_NEAR(box_iou(a, a, IouKind::ciou).item_double(), 1.0, 1e-9);
  EXPECT_NEAR(iou({0, 0, 2, 2}, {1, 1, 3, 3}), 1.0 / 7.0, 1e-12);
  EXPECT_EQ(iou({0, 0, 1, 1}, {2, 2, 3, 3}), 0.0);
  EXPECT_EQ(iou({0, 0, 0, 1}, {0, 0, 0, 1}), 0.0);  // empty
}

TEST(BoxIou, IouGiouDiouGradientsMatchFiniteDifferences) {
  std::mt19937 rng(3);
  for (IouKind kind : {IouKind::iou, IouKind::giou, IouKind::diou}) {
    const Tensor a = random_boxes(4, rng).requires_grad_(), b = random_boxes(4, rng).requires_grad_();
    const auto r = autograd::gradcheck([kind](const std::vector<Tensor>& x) { return box_iou(x[0], x[1], kind, 0); }, {a, b});
    EXPECT_TRUE(r.ok) << static_cast<int>(kind) << ": " << r.message;
  }
}

// CIoU's alpha carries no gradient: the gradient is that of the formula with alpha frozen at its
// value, differentiated here by central differences of the scalar formula.
TEST(BoxIou, CiouGradientIsTheFrozenAlphaFormulas) {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 5; ++trial) {
    Tensor a = random_boxes(1, rng), b = random_boxes(1, rng);
    std::vector<double> av = a.to_vector<double>(), bv = b.to_vector<double>();
    if (scalar_overlap(av.data(), bv.data(), IouKind::iou) == 0) continue;
    const double u = scalar_overlap(av.data(), bv.data(), IouKind::iou);
    const double v = (u - scalar_overlap(av.data(), bv.data(), IouKind::ciou, 1)) - (u - scalar_overlap(av.data(), bv.data(), IouKind::diou));
    const double alpha = v / (1 - u + v);
    a.requires_grad_();
    b.requires_grad_();
    box_iou(a, b, IouKind::ciou, 0).sum().backward();
    const std::vector<double> ga = a.grad().to_vector<double>(), gb = b.grad().to_vector<double>();
    for (int k = 0; k < 8; ++k) {
      std::vector<double> p = av, q = bv, m = av, n = bv;
      const double h = 1e-6;
      (k < 4 ? p[k] : q[k - 4]) += h;
      (k < 4 ? m[k] : n[k - 4]) -= h;
      const double numeric = (scalar_overlap(p.data(), q.data(), IouKind::ciou, alpha) -
                              scalar_overlap(m.data(), n.data(), IouKind::ciou, alpha)) / (2 * h);
      EXPECT_NEAR(k < 4 ? ga[k] : gb[k - 4], numeric, 1e-6) << "coordinate " << k;
    }
  }
}

TEST(BoxIou, RefusesTensorsThatAreNotBoxes) {
  testing::expect_error([] { box_iou(zeros({3, 3}, kFloat64), zeros({3, 4}, kFloat64)); }, {"box_iou", "a", "[3, 3]"});
  testing::expect_error([] { box_iou(zeros({3, 4}, kFloat64), zeros({3, 4}, kFloat32)); }, {"box_iou", "float64", "float32"});
  testing::expect_error([] { pairwise_box_iou(zeros({4}, kFloat64), zeros({3, 4}, kFloat64)); }, {"pairwise_box_iou", "[N, 4]"});
}

}  // namespace boxes_test
}  // namespace strata::vision
