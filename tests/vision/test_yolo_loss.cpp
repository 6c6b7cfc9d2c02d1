// yolo_loss (strata/vision/yolo_loss.hpp) against a scalar computation of the same rules written
// here, on random outputs of two heads.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <array>
#include <random>

#include "strata/strata.hpp"
#include "strata/vision/yolo_loss.hpp"
#include "support/expect_error.hpp"

namespace strata::vision {
namespace yolo_loss_test {

double yl_sigmoid(double v) { return 1 / (1 + std::exp(-v)); }
double yl_bce(double logit, double target) { return -(target * std::log(yl_sigmoid(logit)) + (1 - target) * std::log(1 - yl_sigmoid(logit))); }

double yl_ciou(const vision::Box& a, const vision::Box& b) {
  const double aw = a.x2 - a.x1, ah = a.y2 - a.y1, bw = b.x2 - b.x1, bh = b.y2 - b.y1;
  const double iw = std::max(0.0, std::min(a.x2, b.x2) - std::max(a.x1, b.x1));
  const double ih = std::max(0.0, std::min(a.y2, b.y2) - std::max(a.y1, b.y1));
  const double u = iw * ih / (aw * ah + bw * bh - iw * ih);
  const double cw = std::max(a.x2, b.x2) - std::min(a.x1, b.x1), ch = std::max(a.y2, b.y2) - std::min(a.y1, b.y1);
  const double dx = (a.x1 + a.x2 - b.x1 - b.x2) / 2, dy = (a.y1 + a.y2 - b.y1 - b.y2) / 2;
  const double v = 4 / (std::numbers::pi * std::numbers::pi) * std::pow(std::atan(bw / bh) - std::atan(aw / ah), 2);
  return u - (dx * dx + dy * dy) / (cw * cw + ch * ch) - v * v / (1 - u + v);
}

double yl_iou(const vision::Box& a, const vision::Box& b) {
  const double iw = std::max(0.0, std::min(a.x2, b.x2) - std::max(a.x1, b.x1));
  const double ih = std::max(0.0, std::min(a.y2, b.y2) - std::max(a.y1, b.y1));
  return iw * ih / ((a.x2 - a.x1) * (a.y2 - a.y1) + (b.x2 - b.x1) * (b.y2 - b.y1) - iw * ih);
}

struct YlParts {
  double box = 0, obj = 0, cls = 0;
};

// The loss's rules, one anchor at a time.
YlParts yl_reference(const std::vector<std::vector<float>>& raw, const std::vector<std::array<int64_t, 2>>& grids,
                     const std::vector<YoloHead>& heads, const std::vector<std::vector<LabeledBox>>& truths) {
  YlParts parts;
  const int64_t n = static_cast<int64_t>(truths.size());
  for (size_t k = 0; k < heads.size(); ++k) {
    const YoloHead& hd = heads[k];
    const int64_t a = static_cast<int64_t>(hd.anchors.size()), per = 5 + hd.classes, gh = grids[k][0], gw = grids[k][1];
    const double s = hd.scale_x_y, st = static_cast<double>(hd.stride);
    for (int64_t img = 0; img < n; ++img)
      for (int64_t cy = 0; cy < gh; ++cy)
        for (int64_t cx = 0; cx < gw; ++cx)
          for (int64_t an = 0; an < a; ++an) {
            const float* p = raw[k].data() + (((img * gh + cy) * gw + cx) * a + an) * per;
            // The last truth of the image assigned here, if any.
            const LabeledBox* mine = nullptr;
            for (const LabeledBox& t : truths[img]) {
              const double w = t.box.x2 - t.box.x1, h = t.box.y2 - t.box.y1;
              auto shape = [&](double aw, double ah) { return yl_iou({0, 0, w, h}, {0, 0, aw, ah}); };
              double best = 0;
              for (const YoloHead& other : heads)
                for (const auto& [aw, ah] : other.anchors) best = std::max(best, shape(aw, ah));
              const double u = shape(hd.anchors[an].first, hd.anchors[an].second);
              const bool here = static_cast<int64_t>((t.box.x1 + t.box.x2) / 2 / st) == cx &&
                                static_cast<int64_t>((t.box.y1 + t.box.y2) / 2 / st) == cy;
              if (here && (u == best || u > hd.iou_thresh)) mine = &t;
            }
            const double x = (yl_sigmoid(p[0]) * s - (s - 1) / 2 + cx) * st, y = (yl_sigmoid(p[1]) * s - (s - 1) / 2 + cy) * st;
            const double w = std::exp(p[2]) * hd.anchors[an].first, h = std::exp(p[3]) * hd.anchors[an].second;
            const vision::Box pred{x - w / 2, y - h / 2, x + w / 2, y + h / 2};
            if (mine != nullptr) {
              parts.obj += yl_bce(p[4], 1);
              parts.box += hd.iou_normalizer * (1 - yl_ciou(pred, mine->box));
              for (int64_t c = 0; c < hd.classes; ++c) parts.cls += hd.cls_normalizer * yl_bce(p[5 + c], c == mine->label);
              continue;
            }
            bool ignored = false;
            for (const LabeledBox& t : truths[img]) ignored = ignored || yl_iou(pred, t.box) > hd.ignore_thresh;
            if (!ignored) parts.obj += yl_bce(p[4], 0);
          }
  }
  parts.box /= n, parts.obj /= n, parts.cls /= n;
  return parts;
}

TEST(YoloLoss, MatchesTheScalarComputationOfItsRules) {
  // Input 64 x 64: head 0 stride 32 (2 x 2), head 1 stride 16 (4 x 4), 3 classes.
  YoloHead big{{{30, 28}, {50, 44}}, 3, 32, 1.05, 0.3, 0.07, 1.0};
  YoloHead small{{{8, 10}, {14, 18}, {30, 28}}, 3, 16, 1.05, 0.3, 0.07, 0.5};
  small.iou_thresh = 0.4;  // extra assignments in this head
  const std::vector<YoloHead> heads{big, small};
  const std::vector<std::array<int64_t, 2>> grids{{2, 2}, {4, 4}};
  const std::vector<std::vector<LabeledBox>> truths{
      {{{4, 6, 16, 18}, 0}, {{20, 10, 50, 40}, 2}, {{33, 35, 60, 63}, 1}},
      {},
      {{{10, 10, 24, 30}, 1}, {{11, 9, 25, 31}, 2}}};  // same cell and anchor: the later wins
  std::mt19937 rng(9);
  std::normal_distribution<float> normal(0, 0.8f);
  std::vector<std::vector<float>> raw(2);
  std::vector<Tensor> outputs;
  for (size_t k = 0; k < 2; ++k) {
    const int64_t count = 3 * grids[k][0] * grids[k][1] * static_cast<int64_t>(heads[k].anchors.size()) * 8;
    for (int64_t i = 0; i < count; ++i) raw[k].push_back(normal(rng));
    outputs.push_back(from_vector(raw[k], {3, grids[k][0], grids[k][1], static_cast<int64_t>(heads[k].anchors.size()) * 8}));
  }
  const YlParts want = yl_reference(raw, grids, heads, truths);
  const YoloLoss got = yolo_loss(outputs, heads, truths);
  EXPECT_NEAR(got.box.item_double(), want.box, 1e-4 * std::max(1.0, want.box));
  EXPECT_NEAR(got.objectness.item_double(), want.obj, 1e-4 * std::max(1.0, want.obj));
  EXPECT_NEAR(got.classes.item_double(), want.cls, 1e-4 * std::max(1.0, want.cls));
  EXPECT_NEAR(got.total.item_double(), want.box + want.obj + want.cls, 1e-3);
  EXPECT_GT(got.assigned, 5);
  EXPECT_GT(want.box, 0);
}

TEST(YoloLoss, GradientsReachEveryPartAndTrainingLowersIt) {
  YoloHead head{{{10, 10}, {20, 20}}, 2, 8, 1.0};
  const std::vector<std::vector<LabeledBox>> truths{{{{3, 3, 13, 13}, 1}}};
  Tensor raw = (randn({1, 2, 2, 14}) * 0.1).detach().requires_grad_();
  double first = 0, last = 0;
  for (int step = 0; step < 200; ++step) {
    const YoloLoss l = yolo_loss({raw}, {head}, truths);
    if (step == 0) first = l.total.item_double();
    last = l.total.item_double();
    raw.zero_grad();
    l.total.backward();
    {
      NoGradGuard no_grad;
      add_(raw, raw.grad(), -0.5);
    }
  }
  EXPECT_LT(last, first * 0.2);
}

TEST(YoloLoss, RefusesBadTruthsAndShapes) {
  YoloHead head{{{10, 10}}, 2, 8, 1.0};
  testing::expect_error([&] { yolo_loss({zeros({1, 2, 2, 7})}, {head}, {{{{0, 0, 4, 4}, 2}}}); }, {"yolo_loss", "class 2"});
  testing::expect_error([&] { yolo_loss({zeros({1, 2, 2, 6})}, {head}, {{}}); }, {"yolo_loss", "head 0", "[1, 2, 2, 6]"});
}

}  // namespace yolo_loss_test
}  // namespace strata::vision
