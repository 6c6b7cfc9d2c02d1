// Selecting parts of values: Slice and Split (PyTorch's chunk, x[:, a:b], torch.split), and
// GatherElements. A slice's start and step are its
// lambda's weights and its length the shape of a third, so that a saved model, whose config keeps
// weights' shapes but not their values, declares the same output shapes when it loads.
#include <algorithm>

#include "strata/core/error.hpp"
#include "strata/core/factory.hpp"
#include "strata/nn/layer_config.hpp"

#include "onnx_import.hpp"

namespace strata::onnx::detail {

namespace {

// Input i (absent: empty), a constant int64 vector of 8 values at most.
std::vector<int64_t> int64s(const Importer& im, const pb::NodeProto& node, int i, const std::string& what) {
  if (im.num_inputs(node) <= static_cast<size_t>(i) || node.input(i).empty()) return {};
  const Tensor t = im.constant(node, i);
  require(t.dtype() == kInt64 && t.dim() == 1 && t.numel() <= 8, im, node,
          what + " must be a constant int64 vector of 8 values at most");
  return t.to_vector<int64_t>();
}

// The values [start, start + length) of x's axis, a lambda whose weights a saved model keeps.
nn::Symbol slice(Importer& im, const pb::NodeProto& node, const nn::Symbol& x, int64_t axis, int64_t start,
                 int64_t step, int64_t length) {
  require(axis < 8 && length >= 1 && x.shape()[axis] <= (1 << 24), im, node,
          "a part of a value needs one element or more, on an axis 0-7 of at most 2^24 (exact as float32 weights)");
  return im.function(node, "onnx.slice." + std::to_string(axis), {x},
                     {{"start", scalar(static_cast<float>(start))},
                      {"step", scalar(static_cast<float>(step))},
                      {"length", zeros(Shape{length})}});
}

}  // namespace

std::vector<SliceRange> slice_ranges(const Importer& im, const pb::NodeProto& node, const Shape& shape) {
  const int64_t rank = static_cast<int64_t>(shape.size());
  const std::vector<int64_t> starts = int64s(im, node, 1, "starts"), ends = int64s(im, node, 2, "ends");
  std::vector<int64_t> axes = int64s(im, node, 3, "axes"), steps = int64s(im, node, 4, "steps");
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
  for (const SliceRange& r : slice_ranges(im, node, x.shape())) x = slice(im, node, x, r.axis, r.start, r.step, r.length());
  im.set_output(node, x);
}

// Split into the sizes given (input 1, or the attribute before opset 13) or into one equal part
// per output (the last smaller, as opset 18 has it): one slice per output.
void split_op(Importer& im, const pb::NodeProto& node) {
  const nn::Symbol x = im.value(node, 0);
  const int64_t axis = axis_attribute(im, node, 0, static_cast<int64_t>(x.shape().size())), n = x.shape()[axis],
                parts = node.output_size();
  require(n >= 1 && parts >= 1 && parts <= n, im, node, "needs a fixed axis with at least one element per output");
  std::vector<int64_t> sizes = im.num_inputs(node) > 1 ? int64s(im, node, 1, "split") : ints_attribute(node, "split", {});
  if (sizes.empty()) {
    const int64_t part = (n + parts - 1) / parts;
    for (int64_t i = 0; i < parts; ++i) sizes.push_back(std::min(part, n - i * part));
  }
  int64_t start = 0;
  for (int64_t s : sizes) {
    require(s >= 1 && s <= n - start, im, node, "the sizes must be positive and add up to the axis's " + std::to_string(n));
    start += s;
  }
  require(start == n && static_cast<int64_t>(sizes.size()) == parts, im, node,
          "needs one size per output, adding up to the axis's " + std::to_string(n));
  start = 0;
  for (int i = 0; i < parts; start += sizes[i], ++i)
    if (!node.output(i).empty()) im.set_output(node, slice(im, node, x, axis, start, 1, sizes[i]), i);
}

// GatherElements of a value along a constant axis 0-7, by indices computed or constant (then of
// the value's rank, their shape the output's; a symbolic batch must stay the data's own).
void gather_elements_op(Importer& im, const pb::NodeProto& node) {
  const nn::Symbol x = im.value(node, 0);
  const int64_t rank = static_cast<int64_t>(x.shape().size()), axis = axis_attribute(im, node, 0, rank);
  require(axis < 8, im, node, "axes past 7 are not supported");
  const std::string function = "onnx.gather_elements." + std::to_string(axis);
  if (!im.is_constant(node, 1)) return im.set_output(node, im.function(node, function, {x, im.value(node, 1)}));
  const Tensor indices = im.constant(node, 1);
  require(is_index_dtype(indices.dtype()) && indices.dim() == rank, im, node,
          "needs integer indices of the data's rank");
  require(x.shape()[0] >= 1, im, node, "constant indices into a symbolic batch are not supported");
  im.set_output(node, im.function(node, function, {x}, {{"indices", indices}}));
}

}  // namespace strata::onnx::detail
