// Selecting parts of values: Slice (PyTorch's chunk and x[:, a:b]), and Where with the
// comparisons that feed it (torch.where(h > 0, h, 0.1 * h)). A slice's start and step are its
// lambda's weights and its length the shape of a third, so that a saved model, whose config keeps
// weights' shapes but not their values, declares the same output shapes when it loads.
// Comparisons give float32 0/1 (Strata's layers pass float values), which Where reads as ONNX's
// booleans.
#include <algorithm>

#include "strata/core/error.hpp"
#include "strata/core/factory.hpp"
#include "strata/nn/layer_config.hpp"

#include "onnx_import.hpp"

namespace strata::onnx::detail {

namespace {

std::vector<int64_t> int64s(const Importer& im, const pb::NodeProto& node, int i) {
  if (im.num_inputs(node) <= static_cast<size_t>(i) || node.input(i).empty()) return {};
  const Tensor t = im.constant(node, i);
  require(t.dtype() == kInt64 && t.dim() == 1 && t.numel() <= 8, im, node,
          "starts, ends, axes and steps must be constant int64 vectors of 8 values at most");
  return t.to_vector<int64_t>();
}

}  // namespace

std::vector<SliceRange> slice_ranges(const Importer& im, const pb::NodeProto& node, const Shape& shape) {
  const int64_t rank = static_cast<int64_t>(shape.size());
  const std::vector<int64_t> starts = int64s(im, node, 1), ends = int64s(im, node, 2);
  std::vector<int64_t> axes = int64s(im, node, 3), steps = int64s(im, node, 4);
  if (axes.empty())
    for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
  if (steps.empty()) steps.assign(starts.size(), 1);
  require(ends.size() == starts.size() && axes.size() == starts.size() && steps.size() == starts.size(), im, node,
          "starts, ends, axes and steps must have one value per sliced axis");
  std::vector<SliceRange> out;
  for (size_t i = 0; i < starts.size(); ++i) {
    require(axes[i] >= -rank && axes[i] < rank && steps[i] >= 1, im, node,
            "an axis is out of range or a step is not positive");
    const int64_t axis = axes[i] < 0 ? axes[i] + rank : axes[i], n = shape[axis];
    require(n >= 0, im, node, "the sliced axis " + std::to_string(axis) + " of " + shape.str() + " has no fixed size");
    // ONNX clamps the bounds into [0, n] after counting negative ones from the end.
    auto clamped = [n](int64_t v) { return std::clamp(v < 0 ? std::max(v, -n) + n : v, int64_t{0}, n); };
    const int64_t start = clamped(starts[i]);
    out.push_back({axis, start, std::max(start, clamped(ends[i])), steps[i]});
  }
  return out;
}

void slice_op(Importer& im, const pb::NodeProto& node) {
  nn::Symbol x = im.value(node, 0);
  for (const SliceRange& r : slice_ranges(im, node, x.shape())) {
    require(r.axis < 8 && r.length() >= 1 && x.shape()[r.axis] <= (1 << 24), im, node,
            "a slice of a value needs one element or more, on an axis 0-7 of at most 2^24 (exact as float32 weights)");
    x = im.function(node, "onnx.slice." + std::to_string(r.axis), {x},
               {{"start", scalar(static_cast<float>(r.start))},
                {"step", scalar(static_cast<float>(r.step))},
                {"length", zeros(Shape{r.length()})}});
  }
  im.set_output(node, x);
}

// Greater / Less of a value and a constant, or of two values: 1 where it holds, else 0.
void compare_op(Importer& im, const pb::NodeProto& node) {
  const std::string function = node.op_type() == "Greater" ? "onnx.greater" : "onnx.less";
  require(im.num_inputs(node) == 2 && !im.is_constant(node, 0), im, node, "needs a value as its first input");
  if (im.is_constant(node, 1)) {
    const Tensor k = im.constant(node, 1);
    require(k.dtype() == kFloat32 && k.dim() <= static_cast<int64_t>(im.value(node, 0).shape().size()), im, node,
            "a float32 constant no larger than the input is needed");
    return im.set_output(node, im.function(node, function, {im.value(node, 0)}, {{"value", k}}));
  }
  im.set_output(node, im.function(node, function, {im.value(node, 0), im.value(node, 1)}));
}

// Where(condition, a, b) of three values.
void where_op(Importer& im, const pb::NodeProto& node) {
  require(im.num_inputs(node) == 3, im, node, "needs three inputs");
  std::vector<nn::Symbol> xs;
  for (int i = 0; i < 3; ++i) xs.push_back(im.value(node, i));
  im.set_output(node, im.function(node, "onnx.where", xs));
}

}  // namespace strata::onnx::detail
