#include "strata/vision/yolo_loss.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "strata/core/error.hpp"
#include "strata/core/factory.hpp"
#include "strata/ops/combine.hpp"
#include "strata/ops/elementwise.hpp"
#include "strata/ops/indexing.hpp"
#include "strata/ops/loss.hpp"
#include "strata/ops/reduce.hpp"
#include "strata/ops/shape.hpp"

namespace strata::vision {
namespace {

// IoU of two boxes of these sizes with one centre.
double shape_iou(double w, double h, double aw, double ah) {
  const double inter = std::min(w, aw) * std::min(h, ah);
  return inter / (w * h + aw * ah - inter);
}

double sigmoid(double v) { return 1 / (1 + std::exp(-v)); }

// A truth's anchor: the flat row (image, cy, cx, anchor) of a head's output and the truth.
struct Assignment {
  int64_t row;
  LabeledBox truth;
  double cx, cy;  // the cell's column and row
};

}  // namespace

YoloLoss yolo_loss(const std::vector<Tensor>& outputs, const std::vector<YoloHead>& heads,
                   const std::vector<std::vector<LabeledBox>>& truths) {
  STRATA_CHECK(outputs.size() == heads.size() && !heads.empty(), "yolo_loss: ", outputs.size(), " outputs for ",
               heads.size(), " heads");
  const int64_t n = static_cast<int64_t>(truths.size());
  // Every head's anchor shapes, for the best-shape assignment across heads.
  std::vector<std::pair<double, double>> all_anchors;
  for (const YoloHead& h : heads) all_anchors.insert(all_anchors.end(), h.anchors.begin(), h.anchors.end());
  YoloLoss loss;
  Tensor box_sum, obj_sum, cls_sum;
  for (size_t k = 0; k < heads.size(); ++k) {
    const YoloHead& head = heads[k];
    const Tensor& out = outputs[k];
    const int64_t a = static_cast<int64_t>(head.anchors.size()), per = 5 + head.classes;
    STRATA_CHECK(out.defined() && out.dim() == 4 && out.size(0) == n && out.size(3) == a * per && head.stride >= 1,
                 "yolo_loss: head ", k, " expected [", n, ", h, w, ", a * per, "] for ", n, " images, got ",
                 out.defined() ? out.shape().str() : "undefined");
    const int64_t gh = out.size(1), gw = out.size(2), rows = n * gh * gw * a;
    const double s = head.scale_x_y, stride = static_cast<double>(head.stride);
    // Assignments, keyed by row so that a later truth replaces an earlier one.
    std::map<int64_t, Assignment> assigned;
    for (int64_t img = 0; img < n; ++img)
      for (const LabeledBox& t : truths[img]) {
        STRATA_CHECK(t.label >= 0 && t.label < head.classes && !t.box.empty(), "yolo_loss: image ", img,
                     " has a truth of class ", t.label, " (classes [0, ", head.classes, ")) or an empty box");
        const double w = t.box.x2 - t.box.x1, h = t.box.y2 - t.box.y1;
        double best = 0;
        for (const auto& [aw, ah] : all_anchors) best = std::max(best, shape_iou(w, h, aw, ah));
        const double x = (t.box.x1 + t.box.x2) / 2, y = (t.box.y1 + t.box.y2) / 2;
        const int64_t cx = std::clamp<int64_t>(static_cast<int64_t>(std::floor(x / stride)), 0, gw - 1);
        const int64_t cy = std::clamp<int64_t>(static_cast<int64_t>(std::floor(y / stride)), 0, gh - 1);
        for (int64_t an = 0; an < a; ++an) {
          const double u = shape_iou(w, h, head.anchors[an].first, head.anchors[an].second);
          if (u == best || u > head.iou_thresh)
            assigned[((img * gh + cy) * gw + cx) * a + an] = {((img * gh + cy) * gw + cx) * a + an, t,
                                                               static_cast<double>(cx), static_cast<double>(cy)};
        }
      }
    // Objectness targets and the ignored anchors, from the predicted boxes (no gradient).
    const std::vector<float> v = cast(out.detach(), kFloat32).contiguous().to_vector<float>();
    std::vector<float> obj_target(static_cast<size_t>(rows), 0.0f), obj_weight(static_cast<size_t>(rows), 1.0f);
    for (int64_t row = 0; row < rows; ++row) {
      if (assigned.count(row)) {
        obj_target[row] = 1;
        continue;
      }
      const int64_t an = row % a, cx = (row / a) % gw, cy = (row / a / gw) % gh, img = row / a / gw / gh;
      if (truths[img].empty()) continue;
      const float* p = v.data() + row * per;
      const double x = (sigmoid(p[0]) * s - (s - 1) / 2 + static_cast<double>(cx)) * stride;
      const double y = (sigmoid(p[1]) * s - (s - 1) / 2 + static_cast<double>(cy)) * stride;
      const double w = std::exp(std::min(p[2], 8.0f)) * head.anchors[an].first, h = std::exp(std::min(p[3], 8.0f)) * head.anchors[an].second;
      const Box pred{x - w / 2, y - h / 2, x + w / 2, y + h / 2};
      for (const LabeledBox& t : truths[img])
        if (iou(pred, t.box) > head.ignore_thresh) {
          obj_weight[row] = 0;
          break;
        }
    }
    const Tensor flat = reshape(out, {rows, per});
    const Tensor obj = binary_cross_entropy_with_logits(select(flat, 1, 4), cast(from_vector(obj_target, {rows}), out.dtype()),
                                                        Reduction::none) *
                       cast(from_vector(obj_weight, {rows}), out.dtype());
    obj_sum = obj_sum.defined() ? obj_sum + sum(obj) : sum(obj);
    if (assigned.empty()) continue;
    const int64_t p = static_cast<int64_t>(assigned.size());
    std::vector<int64_t> index;
    std::vector<float> cells, anchor_wh, target_boxes, onehot(static_cast<size_t>(p * head.classes), 0.0f);
    for (const auto& [row, as] : assigned) {
      const int64_t an = row % a;
      onehot[index.size() * head.classes + as.truth.label] = 1;
      index.push_back(row);
      cells.insert(cells.end(), {static_cast<float>(as.cx), static_cast<float>(as.cy)});
      anchor_wh.insert(anchor_wh.end(), {static_cast<float>(head.anchors[an].first), static_cast<float>(head.anchors[an].second)});
      target_boxes.insert(target_boxes.end(), {static_cast<float>(as.truth.box.x1), static_cast<float>(as.truth.box.y1),
                                               static_cast<float>(as.truth.box.x2), static_cast<float>(as.truth.box.y2)});
    }
    auto host = [&](const std::vector<float>& values, int64_t cols) { return cast(from_vector(values, {p, cols}), out.dtype()); };
    const Tensor pos = index_select(flat, 0, from_vector(index, {p}));
    const Tensor xy = (sigmoid(slice(pos, 1, 0, 2)) * s - (s - 1) / 2 + host(cells, 2)) * stride;
    const Tensor wh = exp(clamp(slice(pos, 1, 2, 4), -20, 8)) * host(anchor_wh, 2);
    const Tensor pred = concat({xy - wh / 2, xy + wh / 2}, 1);
    const Tensor box = sum(1.0 - box_iou(pred, host(target_boxes, 4), IouKind::ciou)) * head.iou_normalizer;
    const Tensor cls = sum(binary_cross_entropy_with_logits(slice(pos, 1, 5, per), host(onehot, head.classes), Reduction::none)) *
                       head.cls_normalizer;
    box_sum = box_sum.defined() ? box_sum + box : box;
    cls_sum = cls_sum.defined() ? cls_sum + cls : cls;
    loss.assigned += p;
  }
  const double batch = static_cast<double>(std::max<int64_t>(n, 1));
  auto zero = [&] { return zeros({}, outputs[0].dtype()); };
  loss.box = (box_sum.defined() ? box_sum : zero()) / batch;
  loss.objectness = obj_sum / batch;
  loss.classes = (cls_sum.defined() ? cls_sum : zero()) / batch;
  loss.total = loss.box + loss.objectness + loss.classes;
  return loss;
}

}  // namespace strata::vision
