#include "strata/vision/boxes.hpp"

#include <algorithm>
#include <numbers>

#include "strata/core/error.hpp"
#include "strata/ops/elementwise.hpp"
#include "strata/ops/shape.hpp"

namespace strata::vision {
namespace {

struct Corners {
  Tensor x1, y1, x2, y2;
};

Corners corners(const Tensor& t, const char* name) {
  STRATA_CHECK(t.defined() && t.dim() >= 1 && t.size(-1) == 4 && is_floating(t.dtype()),
               "box_iou: expected ", name, " a floating box tensor [..., 4], got ",
               t.defined() ? t.shape().str() + " " + dtype_name(t.dtype()) : "undefined");
  return {select(t, -1, 0), select(t, -1, 1), select(t, -1, 2), select(t, -1, 3)};
}

}  // namespace

Tensor box_iou(const Tensor& a, const Tensor& b, IouKind kind, double eps) {
  const Corners p = corners(a, "a"), q = corners(b, "b");
  STRATA_CHECK(a.dtype() == b.dtype(), "box_iou: a is ", dtype_name(a.dtype()), " but b is ", dtype_name(b.dtype()));
  const Tensor iw = relu(minimum(p.x2, q.x2) - maximum(p.x1, q.x1));
  const Tensor ih = relu(minimum(p.y2, q.y2) - maximum(p.y1, q.y1));
  const Tensor inter = iw * ih;
  const Tensor pw = p.x2 - p.x1, ph = p.y2 - p.y1, qw = q.x2 - q.x1, qh = q.y2 - q.y1;
  const Tensor uni = pw * ph + qw * qh - inter + eps;
  const Tensor overlap = inter / uni;
  if (kind == IouKind::iou) return overlap;
  // The smallest box enclosing both.
  const Tensor cw = maximum(p.x2, q.x2) - minimum(p.x1, q.x1);
  const Tensor ch = maximum(p.y2, q.y2) - minimum(p.y1, q.y1);
  if (kind == IouKind::giou) {
    const Tensor c_area = cw * ch + eps;
    return overlap - (c_area - uni) / c_area;
  }
  const Tensor c2 = square(cw) + square(ch) + eps;
  const Tensor rho2 = (square(q.x1 + q.x2 - p.x1 - p.x2) + square(q.y1 + q.y2 - p.y1 - p.y2)) / 4.0;
  if (kind == IouKind::diou) return overlap - rho2 / c2;
  const Tensor v = square(atan(qw / (qh + eps)) - atan(pw / (ph + eps))) * (4.0 / (std::numbers::pi * std::numbers::pi));
  const Tensor alpha = (v / (v - overlap + (1.0 + eps))).detach();
  return overlap - (rho2 / c2 + v * alpha);
}

Tensor pairwise_box_iou(const Tensor& a, const Tensor& b, IouKind kind, double eps) {
  STRATA_CHECK(a.defined() && b.defined() && a.dim() == 2 && b.dim() == 2, "pairwise_box_iou: expected a [N, 4] and b [M, 4], got ",
               a.defined() ? a.shape().str() : "undefined", " and ", b.defined() ? b.shape().str() : "undefined");
  return box_iou(unsqueeze(a, 1), unsqueeze(b, 0), kind, eps);
}

double iou(const Box& a, const Box& b) {
  if (a.empty() || b.empty()) return 0;
  const double w = std::min(a.x2, b.x2) - std::max(a.x1, b.x1), h = std::min(a.y2, b.y2) - std::max(a.y1, b.y1);
  if (w <= 0 || h <= 0) return 0;
  const double inter = w * h;
  return inter / ((a.x2 - a.x1) * (a.y2 - a.y1) + (b.x2 - b.x1) * (b.y2 - b.y1) - inter);
}

}  // namespace strata::vision
