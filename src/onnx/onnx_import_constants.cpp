// Shape arithmetic the importer computes while it reads the graph. PyTorch's exporter writes a
// recurrent module's zero initial state as Expand(0, Concat(1, Unsqueeze(Gather(Shape(x), 1)),
// units)): with the input's shape fixed, Shape is a constant and so is all that follows, which
// becomes one more constant of the graph (here) instead of layers of the model.
#include <algorithm>

#include "strata/core/checked_size.hpp"
#include "strata/core/error.hpp"
#include "strata/core/factory.hpp"
#include "strata/ops/combine.hpp"
#include "strata/ops/indexing.hpp"
#include "strata/ops/shape.hpp"

#include "onnx_import.hpp"

namespace strata::onnx::detail {

namespace {

// The fold's result, refused when it would be larger than any tensor a file may hold.
Tensor bounded(const Importer& im, const pb::NodeProto& node, const Tensor& t) {
  checked_size(t.shape().vec(), itemsize(t.dtype()), im.what() + ": " + node_str(node));
  return t;
}

Tensor gather(const Importer& im, const pb::NodeProto& node) {
  const Tensor data = im.constant(node, 0), indices = im.constant(node, 1);
  require(data.dim() >= 1 && indices.dtype() == kInt64, im, node, "needs int64 indices into a tensor of rank 1 or more");
  const int64_t axis = axis_attribute(im, node, 0, data.dim()), n = data.size(axis);
  std::vector<int64_t> ids = indices.to_vector<int64_t>();
  for (int64_t& i : ids) {
    require(i >= -n && i < n, im, node, "index " + std::to_string(i) + " is out of range");
    if (i < 0) i += n;
  }
  // data.shape[:axis] + indices.shape + data.shape[axis + 1:]
  std::vector<int64_t> shape(data.shape().begin(), data.shape().begin() + axis);
  shape.insert(shape.end(), indices.shape().begin(), indices.shape().end());
  shape.insert(shape.end(), data.shape().begin() + axis + 1, data.shape().end());
  checked_size(shape, itemsize(data.dtype()), im.what() + ": " + node_str(node));
  return reshape(index_select(data, axis, from_vector(ids)), Shape(shape));
}

Tensor unsqueeze_fold(const Importer& im, const pb::NodeProto& node) {
  Tensor x = im.constant(node, 0);
  std::vector<int64_t> axes = im.num_inputs(node) > 1 ? im.constant(node, 1).to_vector<int64_t>()
                                                      : ints_attribute(node, "axes", {});
  const int64_t rank = x.dim() + static_cast<int64_t>(axes.size());
  require(!axes.empty() && rank <= 8, im, node, "needs 1 or more axes and a result of rank 8 at most");
  for (int64_t& a : axes) {
    require(a >= -rank && a < rank, im, node, "axis " + std::to_string(a) + " is out of range");
    a = a < 0 ? a + rank : a;
  }
  std::sort(axes.begin(), axes.end());
  require(std::adjacent_find(axes.begin(), axes.end()) == axes.end(), im, node, "an axis is repeated");
  for (int64_t a : axes) x = unsqueeze(x, a);  // increasing: each axis is then the result's own
  return x;
}

Tensor concat_fold(const Importer& im, const pb::NodeProto& node) {
  std::vector<Tensor> xs;
  for (size_t i = 0; i < im.num_inputs(node); ++i) xs.push_back(im.constant(node, static_cast<int>(i)));
  require(!xs.empty() && xs[0].dim() >= 1, im, node, "needs inputs of rank 1 or more");
  const int64_t axis = axis_attribute(im, node, 0, xs[0].dim());
  for (const Tensor& x : xs) {
    bool fits = x.dim() == xs[0].dim() && x.dtype() == xs[0].dtype();
    for (int64_t a = 0; fits && a < x.dim(); ++a) fits = a == axis || x.size(a) == xs[0].size(a);
    require(fits, im, node, "inputs " + xs[0].shape().str() + " and " + x.shape().str() + " do not concatenate");
  }
  return bounded(im, node, concat(xs, axis));
}

// Expand: NumPy broadcasting of the input and the shape, both ways.
Tensor expand_fold(const Importer& im, const pb::NodeProto& node) {
  const Tensor x = im.constant(node, 0), target = im.constant(node, 1);
  require(target.dtype() == kInt64 && target.dim() == 1 && target.numel() <= 8, im, node,
          "needs an int64 shape of 8 values at most");
  const std::vector<int64_t> to = target.to_vector<int64_t>();
  const size_t rank = std::max<size_t>(to.size(), x.dim());
  std::vector<int64_t> shape(rank);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t a = i + x.dim() >= rank ? x.size(i + x.dim() - rank) : 1,
                  b = i + to.size() >= rank ? to[i + to.size() - rank] : 1;
    require(a == b || a == 1 || b == 1, im, node, "shape " + target.shape().str() + " does not broadcast with " + x.shape().str());
    shape[i] = a == 1 ? b : a;
  }
  checked_size(shape, itemsize(x.dtype()), im.what() + ": " + node_str(node));
  return contiguous(broadcast_to(x, Shape(shape)));
}

Tensor identity_fold(const Importer& im, const pb::NodeProto& node) { return im.constant(node, 0); }

}  // namespace

// Shape of a value whose shape is fixed (a symbolic batch has no constant shape).
void shape_op(Importer& im, const pb::NodeProto& node) {
  const Shape s = im.value(node, 0).shape();
  const int64_t rank = static_cast<int64_t>(s.size());
  int64_t start = int_attribute(node, "start", 0), end = int_attribute(node, "end", rank);
  start = std::clamp(start < 0 ? start + rank : start, int64_t{0}, rank);  // ONNX clamps both
  end = std::clamp(end < 0 ? end + rank : end, start, rank);
  const std::vector<int64_t> dims(s.begin() + start, s.begin() + end);
  require(std::find(dims.begin(), dims.end(), -1) == dims.end(), im, node,
          "the shape of " + s.str() + " is not fixed (its batch axis is symbolic)");
  im.set_constant(node, from_vector(dims));
}

const std::map<std::string, ConstantFold>& constant_folds() {
  static const std::map<std::string, ConstantFold> table = {
      {"Gather", gather}, {"Unsqueeze", unsqueeze_fold}, {"Concat", concat_fold}, {"Expand", expand_fold},
      {"Identity", identity_fold}};
  return table;
}

}  // namespace strata::onnx::detail
