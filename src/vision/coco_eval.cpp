#include "strata/vision/coco_eval.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numeric>

#include "strata/core/error.hpp"

namespace strata::vision {
namespace {

constexpr int kIouThresholds = 10;
constexpr int kRecallPoints = 101;

// np.linspace(start, stop, num): start + i * step, the last one exactly stop.
double linspace(double start, double stop, int num, int i) {
  return i == num - 1 ? stop : start + i * ((stop - start) / (num - 1));
}

// pycocotools' bbIou for a non-crowd ground truth: on (x, y, w, h) with the same operations.
double coco_iou(const Box& d, const Box& g) {
  const double dx = d.x1, dy = d.y1, dw = d.x2 - d.x1, dh = d.y2 - d.y1;
  const double gx = g.x1, gy = g.y1, gw = g.x2 - g.x1, gh = g.y2 - g.y1;
  const double w = std::fmin(dw + dx, gw + gx) - std::fmax(dx, gx);
  if (w <= 0) return 0;
  const double h = std::fmin(dh + dy, gh + gy) - std::fmax(dy, gy);
  if (h <= 0) return 0;
  const double i = w * h;
  return i / (dw * dh + gw * gh - i);
}

// One (image, class) pair's detections after matching: score and, per IoU threshold, whether it
// found a ground truth.
struct Scored {
  double score;
  std::array<bool, kIouThresholds> matched;
};

}  // namespace

CocoMetrics coco_evaluate(const std::vector<std::vector<Detection>>& detections,
                          const std::vector<std::vector<LabeledBox>>& truths, int64_t classes, int64_t max_dets) {
  STRATA_CHECK(detections.size() == truths.size(), "coco_evaluate: detections for ", detections.size(),
               " images but ground truth for ", truths.size());
  STRATA_CHECK(classes >= 1 && max_dets >= 1, "coco_evaluate: expected classes >= 1 and max_dets >= 1, got ", classes,
               " and ", max_dets);
  std::array<double, kIouThresholds> thresholds{};
  for (int t = 0; t < kIouThresholds; ++t) thresholds[t] = linspace(0.5, 0.95, kIouThresholds, t);
  std::vector<std::vector<Scored>> per_class(static_cast<size_t>(classes));
  std::vector<int64_t> positives(static_cast<size_t>(classes), 0);
  for (size_t img = 0; img < truths.size(); ++img) {
    for (const LabeledBox& g : truths[img])
      STRATA_CHECK(g.label >= 0 && g.label < classes, "coco_evaluate: image ", img, " has a ground truth of class ",
                   g.label, ", outside [0, ", classes, ")");
    for (const Detection& d : detections[img])
      STRATA_CHECK(d.label >= 0 && d.label < classes && !std::isnan(d.score), "coco_evaluate: image ", img,
                   " has a detection of class ", d.label, " (classes [0, ", classes, ")) or a NaN score");
    for (int64_t c = 0; c < classes; ++c) {
      std::vector<const Box*> gts;
      for (const LabeledBox& g : truths[img])
        if (g.label == c) gts.push_back(&g.box);
      std::vector<const Detection*> dts;
      for (const Detection& d : detections[img])
        if (d.label == c) dts.push_back(&d);
      std::stable_sort(dts.begin(), dts.end(), [](const Detection* a, const Detection* b) { return a->score > b->score; });
      if (static_cast<int64_t>(dts.size()) > max_dets) dts.resize(static_cast<size_t>(max_dets));
      positives[c] += static_cast<int64_t>(gts.size());
      std::vector<std::vector<double>> ious(dts.size(), std::vector<double>(gts.size()));
      for (size_t d = 0; d < dts.size(); ++d)
        for (size_t g = 0; g < gts.size(); ++g) ious[d][g] = coco_iou(dts[d]->box, *gts[g]);
      std::vector<Scored> scored(dts.size());
      for (size_t d = 0; d < dts.size(); ++d) scored[d].score = dts[d]->score;
      for (int t = 0; t < kIouThresholds; ++t) {
        std::vector<char> taken(gts.size(), 0);
        for (size_t d = 0; d < dts.size(); ++d) {
          double best = std::min(thresholds[t], 1 - 1e-10);
          int64_t m = -1;
          for (size_t g = 0; g < gts.size(); ++g) {
            if (taken[g] || ious[d][g] < best) continue;
            best = ious[d][g];
            m = static_cast<int64_t>(g);
          }
          scored[d].matched[t] = m >= 0;
          if (m >= 0) taken[m] = 1;
        }
      }
      per_class[c].insert(per_class[c].end(), scored.begin(), scored.end());
    }
  }
  // accumulate(): per class, detections of all images by decreasing score (a stable sort of the
  // images' lists concatenated), precision made monotone, read at 101 recall points.
  double ap_sum = 0, ap50_sum = 0, ap75_sum = 0, ar_sum = 0;
  int64_t counted = 0;
  for (int64_t c = 0; c < classes; ++c) {
    if (positives[c] == 0) continue;
    ++counted;
    std::vector<Scored>& dts = per_class[c];
    std::stable_sort(dts.begin(), dts.end(), [](const Scored& a, const Scored& b) { return a.score > b.score; });
    const double eps = std::numeric_limits<double>::epsilon();  // np.spacing(1)
    for (int t = 0; t < kIouThresholds; ++t) {
      std::vector<double> recall(dts.size()), precision(dts.size());
      double tp = 0, fp = 0;
      for (size_t d = 0; d < dts.size(); ++d) {
        (dts[d].matched[t] ? tp : fp) += 1;
        recall[d] = tp / static_cast<double>(positives[c]);
        precision[d] = tp / (fp + tp + eps);
      }
      for (size_t d = dts.size(); d-- > 1;) precision[d - 1] = std::max(precision[d - 1], precision[d]);
      double q_sum = 0;
      for (int r = 0; r < kRecallPoints; ++r) {
        const double at = linspace(0.0, 1.0, kRecallPoints, r);
        const auto it = std::lower_bound(recall.begin(), recall.end(), at);  // searchsorted(side='left')
        if (it != recall.end()) q_sum += precision[static_cast<size_t>(it - recall.begin())];
      }
      const double ap = q_sum / kRecallPoints;
      ap_sum += ap;
      if (t == 0) ap50_sum += ap;
      if (t == 5) ap75_sum += ap;
      ar_sum += dts.empty() ? 0 : recall.back();
    }
  }
  CocoMetrics out;
  if (counted == 0) return out;
  out.ap = ap_sum / static_cast<double>(counted * kIouThresholds);
  out.ap50 = ap50_sum / static_cast<double>(counted);
  out.ap75 = ap75_sum / static_cast<double>(counted);
  out.ar = ar_sum / static_cast<double>(counted * kIouThresholds);
  return out;
}

}  // namespace strata::vision
