#include "strata/vision/nms.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "strata/core/error.hpp"
#include "strata/core/factory.hpp"
#include "strata/ops/elementwise.hpp"
#include "strata/vision/boxes.hpp"

namespace strata::vision {
namespace {

Box box_at(const std::vector<double>& b, int64_t i) { return {b[4 * i], b[4 * i + 1], b[4 * i + 2], b[4 * i + 3]}; }

// darknet's box_diounms: IoU less the centre-distance penalty raised to beta.
double diou_nms_overlap(const Box& a, const Box& b, double beta) {
  const double overlap = iou(a, b);
  const double cw = std::max(a.x2, b.x2) - std::min(a.x1, b.x1), ch = std::max(a.y2, b.y2) - std::min(a.y1, b.y1);
  const double c = cw * cw + ch * ch;
  if (c == 0) return overlap;
  const double dx = (a.x1 + a.x2 - b.x1 - b.x2) / 2, dy = (a.y1 + a.y2 - b.y1 - b.y2) / 2;
  return overlap - std::pow((dx * dx + dy * dy) / c, beta);
}

Tensor suppress(const Tensor& boxes, const Tensor& scores, const std::vector<int64_t>& classes, const NmsOptions& options) {
  const int64_t n = boxes.size(0);
  const std::vector<double> b = cast(boxes.detach(), kFloat64).contiguous().to_vector<double>();
  const std::vector<double> s = cast(scores.detach(), kFloat64).contiguous().to_vector<double>();
  for (int64_t i = 0; i < n; ++i) STRATA_CHECK(!std::isnan(s[i]), "nms: score ", i, " is NaN");
  std::vector<int64_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int64_t i, int64_t j) { return s[i] > s[j]; });
  std::vector<char> dropped(static_cast<size_t>(n), 0);
  std::vector<int64_t> kept;
  for (size_t oi = 0; oi < order.size(); ++oi) {
    const int64_t i = order[oi];
    if (dropped[i]) continue;
    kept.push_back(i);
    const Box a = box_at(b, i);
    for (size_t oj = oi + 1; oj < order.size(); ++oj) {
      const int64_t j = order[oj];
      if (dropped[j] || (!classes.empty() && classes[j] != classes[i])) continue;
      const Box c = box_at(b, j);
      const double overlap = options.kind == NmsKind::diou ? diou_nms_overlap(a, c, options.beta) : iou(a, c);
      if (overlap > options.iou_threshold) dropped[j] = 1;
    }
  }
  return from_vector(kept, Shape{static_cast<int64_t>(kept.size())});
}

void check_inputs(const Tensor& boxes, const Tensor& scores, const NmsOptions& options, const char* op) {
  STRATA_CHECK(boxes.defined() && scores.defined() && boxes.dim() == 2 && boxes.size(1) == 4 && scores.dim() == 1 &&
                   scores.size(0) == boxes.size(0),
               op, ": expected boxes [N, 4] and scores [N], got ", boxes.defined() ? boxes.shape().str() : "undefined",
               " and ", scores.defined() ? scores.shape().str() : "undefined");
  STRATA_CHECK(std::isfinite(options.iou_threshold) && std::isfinite(options.beta) && options.beta > 0, op,
               ": expected a finite iou_threshold and beta > 0, got ", options.iou_threshold, " and ", options.beta);
}

}  // namespace

Tensor nms(const Tensor& boxes, const Tensor& scores, const NmsOptions& options) {
  check_inputs(boxes, scores, options, "nms");
  return suppress(boxes, scores, {}, options);
}

Tensor batched_nms(const Tensor& boxes, const Tensor& scores, const Tensor& classes, const NmsOptions& options) {
  check_inputs(boxes, scores, options, "batched_nms");
  STRATA_CHECK(classes.defined() && classes.dim() == 1 && classes.size(0) == boxes.size(0),
               "batched_nms: expected classes [", boxes.size(0), "], got ", classes.defined() ? classes.shape().str() : "undefined");
  return suppress(boxes, scores, cast(classes, kInt64).contiguous().to_vector<int64_t>(), options);
}

}  // namespace strata::vision
