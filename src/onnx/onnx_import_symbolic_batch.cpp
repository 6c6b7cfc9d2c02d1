// The symbolic batch N in shape arithmetic. PyTorch's exporter, given a symbolic batch, computes
// shapes from the values' own: ShuffleNet's channel shuffle reshapes to [N, 2, C/2, H, W] with N
// from Shape -> Gather -> Unsqueeze -> Concat, an LSTM's zero initial state is ConstantOfShape of
// [layers, N, hidden]. A static model's layers take the batch as their first axis and fix every
// other size, so each element of such a shape is a + b·N with a and b known while importing; the
// two are kept as int64 constants "<name>#a" and "<name>#b", and the operators that are linear in
// their data (Gather, Slice, Unsqueeze, Concat, Cast to an integer, Identity, Add, Sub, Mul by a
// constant) fold each part with the import's own constant folds. Div by a constant divides an
// element with N in it only when the result stays whole (b and a divisible). What reads such a
// shape: a Reshape whose target is N in its first element and fixed sizes after (the layers'
// reshape keeping the batch), ConstantOfShape of zeros, sliced, as a recurrent node's initial
// state (absent: ONNX's zeros). Anything else that reads one is refused naming the node, never
// computed at a batch of 1.
//
// The layers' shapes say -1 for the batch on axis 0 whatever a Transpose did (a model's probe runs
// at batch 1), so where a node moves the batch away from axis 0 its outputs' shapes are recorded
// (moved_, -1 for the batch; unknown after a node that is not followed): Shape and Slice of such a
// value use them, and Reshape of one is refused.
#include <algorithm>

#include "strata/core/error.hpp"
#include "strata/core/factory.hpp"
#include "strata/ops/elementwise.hpp"
#include "strata/ops/shape.hpp"

#include "onnx_import.hpp"

namespace strata::onnx::detail {

namespace {

std::string batch_part(const std::string& name, char part) { return name + "#" + part; }

// An Unsqueeze's or Squeeze's axes (input 1 from opset 13, the attribute before), counted from
// the front of a result (Unsqueeze) or input (Squeeze) of this rank, sorted.
std::vector<int64_t> squeeze_axes(const Importer& im, const pb::NodeProto& node, int64_t in_rank) {
  std::vector<int64_t> axes = squeeze_axes_given(im, node);
  const int64_t rank = node.op_type() == "Unsqueeze" ? in_rank + static_cast<int64_t>(axes.size()) : in_rank;
  for (int64_t& a : axes) a = a < 0 ? a + rank : a;
  std::sort(axes.begin(), axes.end());
  return axes;
}

// Records the shape of a value whose batch N (or a multiple k·N, written -k) left axis 0: a shape
// with N alone on axis 0 is the layers' own and is not recorded; {} records it as not known.
void note_moved(std::map<std::string, Shape>& moved, const std::string& out, const std::vector<int64_t>& s) {
  const auto batches = std::count_if(s.begin(), s.end(), [](int64_t d) { return d < 0; });
  if (s.empty() || s[0] != -1 || batches != 1) moved[out] = Shape(s);
}

// x's elements [start, start + length) along `axis`, the import's slice function (its start and
// step weights, its length the shape of a third, as onnx_import_select.cpp makes them).
nn::Symbol slice_along(Importer& im, const pb::NodeProto& node, const nn::Symbol& x, int64_t axis, int64_t start,
                       int64_t step, int64_t length, int64_t size) {
  require(axis < 8 && length >= 1 && size <= (1 << 24), im, node,
          "a part of a value needs one element or more, on an axis 0-7 of at most 2^24");
  return im.function(node, "onnx.slice." + std::to_string(axis), {x},
                     {{"start", scalar(static_cast<float>(start))},
                      {"step", scalar(static_cast<float>(step))},
                      {"length", zeros(Shape{length})}});
}

const std::set<std::string> kLinearInData = {"Gather", "Slice", "Unsqueeze", "Squeeze",
                                             "Concat", "Cast",  "Identity",  "Reshape"};
const std::set<std::string> kElementwise = {"Add",
                                            "Sub",
                                            "Mul",
                                            "Div",
                                            "Relu",
                                            "Sigmoid",
                                            "Tanh",
                                            "Erf",
                                            "Sqrt",
                                            "Pow",
                                            "Neg",
                                            "Abs",
                                            "Exp",
                                            "Clip",
                                            "Gelu",
                                            "Where",
                                            "Cast",
                                            "Identity",
                                            "LeakyRelu",
                                            "Dropout",
                                            "Softmax",
                                            "LogSoftmax",
                                            "LayerNormalization"};

}  // namespace

bool Importer::batch_arithmetic(const pb::NodeProto& node) {
  const std::string& op = node.op_type();
  const int n = static_cast<int>(num_inputs(node));
  if (n == 0) return false;
  auto input = [&](int i) -> const std::string& { return node.input(i); };
  auto is_batch_shape = [&](int i) { return i < n && batch_shapes_.count(input(i)) > 0; };
  auto is_batch_zeros = [&](int i) { return i < n && batch_zeros_.count(input(i)) > 0; };
  auto moved = [&](int i) { return i < n && moved_.count(input(i)) > 0; };
  auto part = [&](int i, char p) {
    const Tensor& t = constants_.at(batch_part(input(i), p));
    require(!is_floating(t.dtype()), *this, node,
            "input " + std::to_string(i) +
                " is a float shape with the symbolic batch, which only a Div "
                "by another one (N / N) makes known");
    return cast(t, kInt64).to_vector<int64_t>();
  };
  auto define = [&](const std::string& name) {
    STRATA_CHECK(
        !values_.count(name) && !constants_.count(name) && !batch_shapes_.count(name) && !batch_zeros_.count(name),
        what_, ": value '", name, "' is defined twice");
  };
  // The node's output as a + b·N, a plain constant when b is all zeros.
  auto set_batch_shape = [&](Tensor a, Tensor b) {
    require(node.output_size() == 1 && (a.dtype() == kInt64 || a.dtype() == kInt32 || a.dtype() == kFloat32) &&
                b.dtype() == a.dtype() && a.dim() <= 1,
            *this, node,
            "shape arithmetic with the symbolic batch must give one int64, int32 or float32 scalar or vector");
    const std::string& out = node.output(0);
    define(out);
    const std::vector<int64_t> bs = cast(b, kInt64).to_vector<int64_t>();
    if (std::all_of(bs.begin(), bs.end(), [](int64_t v) { return v == 0; })) return add_constant(out, std::move(a));
    add_constant(batch_part(out, 'a'), std::move(a));
    add_constant(batch_part(out, 'b'), std::move(b));
    batch_shapes_.insert(out);
  };

  if ((op == "Shape" || op == "Slice" || op == "Gather") && moved(0)) {
    const Shape& s = moved_.at(input(0));
    require(!s.empty(), *this, node,
            "the input's batch has left the first axis (a Transpose or Unsqueeze before it) and its shape is not known "
            "while importing");
    if (op == "Slice") {  // on fixed axes (slice_ranges refuses the batch's)
      nn::Symbol x = value(node, 0);
      std::vector<int64_t> out = s.vec();
      for (const SliceRange& r : slice_ranges(*this, node, s)) {
        x = slice_along(*this, node, x, r.axis, r.start, r.step, r.length(), s[r.axis]);
        out[r.axis] = r.length();
      }
      set_output(node, x);
      note_moved(moved_, node.output(0), out);
      return true;
    }
    if (op == "Gather") {  // one constant index along a fixed axis: a slice of one, squeezed
      const int64_t axis = axis_attribute(*this, node, 0, static_cast<int64_t>(s.size()));
      require(is_constant(node, 1) && constant(node, 1).dim() == 0 && !is_floating(constant(node, 1).dtype()) &&
                  s[axis] > 0,
              *this, node,
              "a value whose batch left the first axis is gathered only by one constant index along a fixed axis");
      int64_t i = cast(constant(node, 1), kInt64).item<int64_t>();
      require(i >= -s[axis] && i < s[axis], *this, node, "index " + std::to_string(i) + " is out of range");
      i = i < 0 ? i + s[axis] : i;
      const nn::Symbol x = slice_along(*this, node, value(node, 0), axis, i, 1, 1, s[axis]);
      set_output(node, squeeze(*this, node, x, {axis}, false));
      std::vector<int64_t> out = s.vec();
      out.erase(out.begin() + axis);
      note_moved(moved_, node.output(0), out);
      return true;
    }
  }
  require(op != "Gather" || !moved(1), *this, node, "indices whose batch left the first axis are not supported");
  if (op == "Shape") {
    const auto v = values_.find(input(0));
    const Shape s = moved(0) ? moved_.at(input(0)) : v != values_.end() ? v->second.shape() : Shape{};
    if (std::none_of(s.begin(), s.end(), [](int64_t d) { return d < 0; })) return false;
    const int64_t rank = static_cast<int64_t>(s.size());
    int64_t start = int_attribute(node, "start", 0), end = int_attribute(node, "end", rank);
    start = std::clamp(start < 0 ? start + rank : start, int64_t{0}, rank);  // ONNX clamps both
    end = std::clamp(end < 0 ? end + rank : end, start, rank);
    std::vector<int64_t> a, b;
    for (int64_t i = start; i < end; ++i) {
      a.push_back(s[i] < 0 ? 0 : s[i]);  // -k: k·N
      b.push_back(s[i] < 0 ? -s[i] : 0);
    }
    set_batch_shape(from_vector(a), from_vector(b));
    return true;
  }

  // A constant shape with one -1 and no 0 of a value with the batch (the dynamo exporter writes
  // those): the -1 is some k·N.
  const auto reshaped_value = values_.find(input(0));
  const bool batch_value = reshaped_value != values_.end() && reshaped_value->second.shape().size() > 0 &&
                           reshaped_value->second.shape()[0] == -1;
  bool minus_one = false;
  if (op == "Reshape" && n == 2 && batch_value && is_constant(node, 1)) {
    const Tensor t = constant(node, 1);
    const auto v = t.dtype() == kInt64 && t.dim() == 1 ? t.to_vector<int64_t>() : std::vector<int64_t>{};
    minus_one = std::count(v.begin(), v.end(), -1) == 1 && std::count(v.begin(), v.end(), 0) == 0;
  }
  if (op == "Reshape" && !is_batch_shape(0) && !is_batch_zeros(0) && !is_batch_zeros(1) &&
      (moved(0) || is_batch_shape(1) || minus_one)) {
    const auto x = values_.find(input(0));
    require(x != values_.end() && n == 2, *this, node, "needs a value to reshape and a shape");
    std::vector<int64_t> a, b;
    if (is_batch_shape(1)) {
      a = part(1, 'a'), b = part(1, 'b');
    } else {  // a constant shape with -1: its size is k·N, k from the input's shape
      const Shape& s = moved(0) ? moved_.at(input(0)) : x->second.shape();
      require(!s.empty() && is_constant(node, 1), *this, node,
              "the input's batch has left the first axis (a Transpose or Unsqueeze before it) and its shape is not "
              "known while importing");
      a = cast(constant(node, 1), kInt64).to_vector<int64_t>();
      // The -1 holds k·N·(the input's fixed sizes) / (the shape's fixed sizes): a whole k'·N or refused.
      __int128 in = 1, out = 1;  // the input's sizes are a model's (bounded); the shape's are bounded here
      for (int64_t d : s.vec()) in *= d < 0 ? -d : d;
      for (int64_t d : a) {
        require(d == -1 || (d > 0 && d <= (int64_t{1} << 31)), *this, node,
                "a reshape of a value whose batch moved needs sizes of -1 (once) and fixed positive ones");
        out *= d == -1 ? 1 : d;
        require(out <= (__int128{1} << 62), *this, node, "the shape holds too many elements");
      }
      const auto at = std::find(a.begin(), a.end(), -1);
      require(std::count(a.begin(), a.end(), -1) == 1 && a.size() <= 8 && in % out == 0 && in / out <= (1 << 30), *this,
              node, "the shape's -1 is not a whole multiple of the batch N");
      b.assign(a.size(), 0);
      b[at - a.begin()] = static_cast<int64_t>(in / out);
      a[at - a.begin()] = 0;
    }
    // allowzero 1 differs only where the shape holds a fixed 0 (N stands for no 0)
    bool zero = false;
    for (size_t i = 0; i < a.size(); ++i) zero = zero || (a[i] == 0 && b[i] == 0);
    require(int_attribute(node, "allowzero", 0) == 0 || !zero, *this, node,
            "allowzero with a 0 in the shape is not supported");
    if (!moved(0) && x->second.shape()[0] == -1 && a[0] == 0 && b[0] == 1 &&
        std::all_of(b.begin() + 1, b.end(), [](int64_t v) { return v == 0; })) {
      // N first and fixed sizes after: the layers' reshape keeping the batch (0 copies it).
      const std::string target = batch_part(node.output(0), 't');
      std::vector<int64_t> t = a;
      t[0] = 0;
      add_constant(target, from_vector(t));
      pb::NodeProto copy = node;
      copy.set_input(1, target);
      for (auto& attribute : *copy.mutable_attribute())
        if (attribute.name() == "allowzero") attribute.set_i(0);  // the 0 put for N copies the batch
      op_imports().at("Reshape")(*this, copy);
      return true;
    }
    // Any other place or multiple of N (attention's [T, B·H, d]): one size k·N, the others fixed
    // and positive; the layers' reshape keeps an added axis of 1 and takes -1 for k·N.
    std::vector<int64_t> t, out;
    int64_t known = 1;  // the fixed sizes' product, bounded before the layers multiply them
    for (size_t i = 0; i < a.size(); ++i) {
      const bool batch = b[i] != 0;
      constexpr int64_t kMaxSize = int64_t{1} << 31;
      require(batch ? a[i] == 0 && b[i] > 0 && b[i] <= kMaxSize : a[i] > 0 && a[i] <= kMaxSize, *this, node,
              "a reshape with a symbolic batch needs one size k·N and fixed positive sizes (2^31 at most)");
      require(batch || known <= (int64_t{1} << 62) / a[i], *this, node, "the shape holds too many elements");
      known *= batch ? 1 : a[i];
      t.push_back(batch ? -1 : a[i]);
      out.push_back(batch ? -b[i] : a[i]);
    }
    require(std::count(t.begin(), t.end(), -1) == 1 && t.size() < 8, *this, node,
            "a reshape with a symbolic batch needs exactly one size k·N, and a rank of 7 at most");
    const nn::Symbol y = layer(node, "reshape", {{"shape", t}}, {squeeze(*this, node, x->second, {0}, true)});
    set_output(node, squeeze(*this, node, y, {0}, false));
    note_moved(moved_, node.output(0), out);
    return true;
  }

  // F.interpolate(x, size=...) with a symbolic batch: Resize to sizes Concat(Shape(x)[:2], [H', W']),
  // N on the batch axis. The batch keeps its size, so the copy resizes the other axes alone, to
  // the same sizes. Only the stretch policy: the others weigh the batch's scale 1 against the rest.
  if (op == "Resize" && n > 3 && is_batch_shape(3) && !is_batch_shape(0) && !is_batch_shape(2)) {
    const auto x = values_.find(input(0));
    require(x != values_.end() && !moved(0) && x->second.shape()[0] == -1, *this, node,
            "sizes with the symbolic batch need an input whose batch is on the first axis");
    require(string_attribute(node, "keep_aspect_ratio_policy", "stretch") == "stretch", *this, node,
            "sizes with the symbolic batch are supported with keep_aspect_ratio_policy stretch only");
    const int64_t rank = static_cast<int64_t>(x->second.shape().size());
    const std::vector<int64_t> a = part(3, 'a'), b = part(3, 'b');
    std::vector<int64_t> axes = ints_attribute(node, "axes", {});
    if (axes.empty())
      for (int64_t i = 0; i < rank; ++i) axes.push_back(i);
    require(axes.size() == a.size(), *this, node, "needs one size per axis");
    std::vector<int64_t> other_axes, other_sizes;
    int batches = 0;
    for (size_t i = 0; i < a.size(); ++i) {
      require(axes[i] >= -rank && axes[i] < rank, *this, node, "axis " + std::to_string(axes[i]) + " is out of range");
      const int64_t axis = axes[i] < 0 ? axes[i] + rank : axes[i];
      if (b[i] == 0) {
        other_axes.push_back(axis);
        other_sizes.push_back(a[i]);
        continue;
      }
      require(axis == 0 && a[i] == 0 && b[i] == 1, *this, node,
              "a size with the symbolic batch must be the batch N itself, on the first axis");
      ++batches;
    }
    require(batches == 1 && !other_axes.empty(), *this, node,
            "sizes hold the symbolic batch N once, beside other axes");
    const std::string sizes = batch_part(node.output(0), 's');
    add_constant(sizes, from_vector(other_sizes));
    pb::NodeProto copy = node;
    copy.set_input(3, sizes);
    auto* attributes = copy.mutable_attribute();
    for (int i = attributes->size() - 1; i >= 0; --i)
      if (attributes->Get(i).name() == "axes") attributes->DeleteSubrange(i, 1);
    set_ints(copy, "axes", other_axes);
    op_imports().at("Resize")(*this, copy);
    return true;
  }

  // Resize's scales from two shapes, Div(Cast(Shape(y)), Cast(Shape(x))): N / N, and any two
  // proportional elements (a + b·N) / (a' + b'·N), is the same for every N, known while importing.
  if (op == "Div" && n == 2 && is_batch_shape(0) && is_batch_shape(1)) {
    const Tensor a0 = constants_.at(batch_part(input(0), 'a')), c0 = constants_.at(batch_part(input(1), 'a'));
    require(a0.dtype() == c0.dtype(), *this, node, "needs operands of one element type");
    const bool floats = a0.dtype() == kFloat32;
    const auto parts = [&](int i, char p) {  // float32 parts are exact in float64, and so are their products
      const Tensor& t = constants_.at(batch_part(input(i), p));
      return floats ? cast(t, kFloat64).to_vector<double>() : std::vector<double>{};
    };
    const std::vector<double> fa = parts(0, 'a'), fb = parts(0, 'b'), fc = parts(1, 'a'), fd = parts(1, 'b');
    std::vector<int64_t> a, b, c, d;
    if (!floats) a = part(0, 'a'), b = part(0, 'b'), c = part(1, 'a'), d = part(1, 'b');
    const size_t na = floats ? fa.size() : a.size(), nc = floats ? fc.size() : c.size();
    require(na == nc || na == 1 || nc == 1, *this, node, "the two shapes do not broadcast");
    std::vector<double> ratio;
    for (size_t i = 0; i < std::max(na, nc); ++i) {
      const size_t j = na == 1 ? 0 : i, k = nc == 1 ? 0 : i;
      const bool known = floats ? fc[k] >= 0 && fd[k] >= 0 && fc[k] + fd[k] > 0 && fa[j] * fd[k] == fb[j] * fc[k]
                                : c[k] >= 0 && d[k] >= 0 && c[k] + d[k] > 0 &&
                                      static_cast<__int128>(a[j]) * d[k] == static_cast<__int128>(b[j]) * c[k];
      require(
          known, *this, node,
          "divides two shapes with the symbolic batch whose quotient depends on N (element " + std::to_string(i) + ")");
      // as the node computes it at every N: float32 division, or integer division truncating
      if (floats) {
        const bool by_n = fd[k] != 0;
        ratio.push_back(static_cast<float>(by_n ? fb[j] : fa[j]) / static_cast<float>(by_n ? fd[k] : fc[k]));
      } else {
        ratio.push_back(static_cast<double>(d[k] != 0 ? b[j] / d[k] : a[j] / c[k]));
      }
    }
    const Tensor q = cast(from_vector(ratio, na >= nc ? a0.shape() : c0.shape()), a0.dtype());
    set_batch_shape(q, zeros_like(q));
    return true;
  }

  bool reads_shape = false, reads_zeros = false;
  for (int i = 0; i < n; ++i)
    reads_shape = reads_shape || is_batch_shape(i), reads_zeros = reads_zeros || is_batch_zeros(i);
  if (!reads_shape && !reads_zeros) return false;
  const std::string refused =
      "reads the symbolic batch's shape arithmetic, which Strata's import takes only in "
      "Gather, Slice, Unsqueeze, Squeeze, Concat, Cast, Identity, Add, Sub, Mul and Div by constants, "
      "Reshape, zeros of such a shape (ConstantOfShape, Expand) and a recurrent node's initial state";

  if (reads_shape && (op != "Reshape" || is_batch_shape(0)) &&
      (kLinearInData.count(op) || op == "Add" || op == "Sub" || op == "Mul" || op == "Div")) {
    // Which inputs carry data the fold treats linearly: the others must be plain constants.
    const bool arithmetic = !kLinearInData.count(op);
    const int data_inputs = op == "Concat" || arithmetic ? n : 1;
    for (int i = data_inputs; i < n; ++i)
      require(!is_batch_shape(i) && !is_batch_zeros(i), *this, node, "input " + std::to_string(i) + " " + refused);
    for (int i = 0; i < n; ++i) require(!is_batch_zeros(i), *this, node, refused);
    if (op == "Cast") {
      const int64_t to = int_attribute(node, "to", 0);
      require(to == pb::TensorProto::INT64 || to == pb::TensorProto::INT32 || to == pb::TensorProto::FLOAT, *this, node,
              "a shape with the symbolic batch can only be cast to int64, int32 or float");
    }
    // A float shape (Cast of one) moves as it is; arithmetic on its parts would not round as on its values.
    for (int i = 0; arithmetic && i < n; ++i)
      if (is_batch_shape(i)) part(i, 'a');
    if (op == "Mul")
      require(!(is_batch_shape(0) && is_batch_shape(1)), *this, node, "N·N is not a shape the import keeps");
    if (op == "Div") {
      require(!is_batch_shape(1) && is_constant(node, 1) && constant(node, 1).numel() == 1, *this, node,
              "divides the symbolic batch's shape by something other than one constant");
      const int64_t k = cast(constant(node, 1), kInt64).item<int64_t>();
      require(k > 0, *this, node, "divides the symbolic batch's shape by " + std::to_string(k) + " (not positive)");
      const auto a = part(0, 'a'), b = part(0, 'b');
      for (size_t i = 0; i < a.size(); ++i)
        require((b[i] == 0 || (a[i] % k == 0 && b[i] % k == 0)), *this, node,
                "a size with the symbolic batch N in it divided by " + std::to_string(k) + " is not a whole a + b·N");
    }
    // Each part through the constant fold: a + b·N op c = (a op c) + (b op c')·N, c' = c for the
    // data inputs of a selection and for Mul and Div, 0 for Add and Sub.
    const auto& fold = constant_folds().at(op);
    Tensor parts[2];
    for (int p = 0; p < 2; ++p) {
      pb::NodeProto copy = node;
      for (int i = 0; i < n; ++i) {
        if (input(i).empty()) continue;
        if (is_batch_shape(i)) {
          copy.set_input(i, batch_part(input(i), p == 0 ? 'a' : 'b'));
        } else if (p == 1 && i < data_inputs && op != "Mul" && op != "Div") {  // its b part: zeros
          const std::string zero = batch_part(input(i), '0');
          if (!constants_.count(zero)) add_constant(zero, zeros_like(constant(node, i)));
          copy.set_input(i, zero);
        }
      }
      parts[p] = fold(*this, copy);
    }
    set_batch_shape(std::move(parts[0]), std::move(parts[1]));
    return true;
  }

  // Zeros of a shape with the batch: ConstantOfShape (of 0), Expand of a constant of zeros (its
  // own shape all ones, so the target's is the result's).
  auto all_zeros = [](const Tensor& t) {
    const auto v = cast(t, kFloat64).to_vector<double>();
    return std::all_of(v.begin(), v.end(), [](double x) { return x == 0; });
  };
  const bool constant_of_shape = op == "ConstantOfShape" && is_batch_shape(0);
  const bool expand = op == "Expand" && n == 2 && is_batch_shape(1) && is_constant(node, 0);
  if (constant_of_shape || expand) {
    const auto* v = find_attribute(node, "value");
    const bool zeros =
        expand ? all_zeros(constant(node, 0)) && constant(node, 0).numel() == 1
               : v == nullptr || (v->type() == pb::AttributeProto::TENSOR &&
                                  v->t().data_type() != pb::TensorProto::FLOAT16 && all_zeros(read_tensor(v->t())));
    require(zeros, *this, node, "only zeros (one zero expanded) of a shape with the symbolic batch are supported");
    const int s = expand ? 1 : 0;
    const auto a = part(s, 'a'), b = part(s, 'b');
    require(!expand || constant(node, 0).dim() <= static_cast<int64_t>(a.size()), *this, node,
            "the expanded constant has more axes than the shape");
    std::vector<int64_t> dims;
    for (size_t i = 0; i < a.size(); ++i) {
      require(b[i] == 0 ? a[i] >= 0 : a[i] == 0 && b[i] == 1, *this, node,
              "a size other than the batch N itself or a fixed one is not supported");
      dims.push_back(b[i] == 0 ? a[i] : -1);
    }
    define(node.output(0));
    batch_zeros_[node.output(0)] = Shape(dims);
    return true;
  }

  if ((op == "Slice" || op == "Unsqueeze") && is_batch_zeros(0) && !reads_shape) {
    Shape dims = batch_zeros_.at(input(0));
    if (op == "Slice") {
      for (const SliceRange& r : slice_ranges(*this, node, dims)) dims[r.axis] = r.length();
    } else {
      std::vector<int64_t> d = dims.vec();
      for (int64_t a : squeeze_axes(*this, node, static_cast<int64_t>(d.size()))) {
        require(a >= 0 && a <= static_cast<int64_t>(d.size()) && d.size() < 8, *this, node, "an axis is out of range");
        d.insert(d.begin() + a, 1);
      }
      dims = Shape(d);
    }
    define(node.output(0));
    batch_zeros_[node.output(0)] = dims;
    return true;
  }

  if ((op == "LSTM" || op == "GRU" || op == "RNN") && !reads_shape) {
    // Zeros as initial_h (5) and initial_c (6, LSTM): the state ONNX starts from without them.
    const int64_t layout = int_attribute(node, "layout", 0), hidden = int_attribute(node, "hidden_size", 0);
    const int64_t directions = string_attribute(node, "direction", "forward") == "bidirectional" ? 2 : 1;
    pb::NodeProto copy = node;
    for (int i = 0; i < n; ++i) {
      if (!is_batch_zeros(i)) continue;
      const Shape& s = batch_zeros_.at(input(i));
      const Shape want = layout == 0 ? Shape{directions, -1, hidden} : Shape{-1, directions, hidden};
      require((i == 5 || (i == 6 && op == "LSTM")) && s == want, *this, node,
              "input " + std::to_string(i) + " is zeros of shape " + s.str() + " (-1: the batch) where an initial " +
                  "state " + want.str() + " is expected");
      copy.set_input(i, "");
    }
    op_imports().at(op)(*this, copy);
    return true;
  }
  require(false, *this, node, refused);
  return false;
}

void Importer::track_batch_axis(const pb::NodeProto& node) {
  const std::string& op = node.op_type();
  // Input i's shape with its batch (-1) where it is; {} when it has none or it is not known.
  auto shape_of = [&](int i, bool& batch) -> Shape {
    batch = false;
    if (i >= node.input_size() || node.input(i).empty()) return {};
    if (const auto m = moved_.find(node.input(i)); m != moved_.end()) return batch = true, m->second;
    const auto v = values_.find(node.input(i));
    if (v == values_.end() || v->second.shape().size() == 0 || v->second.shape()[0] != -1) return {};
    return batch = true, v->second.shape();
  };
  auto set = [&](int out, const std::vector<int64_t>& s) {
    if (out < node.output_size() && values_.count(node.output(out))) note_moved(moved_, node.output(out), s);
  };
  // batch_arithmetic imported these itself where their input's batch had moved
  if (op == "Reshape" || op == "Gather" || (op == "Slice" && moved_.count(node.input(0)))) return;
  // The first input with a batch (an element-wise node's moved operand may come second: PyTorch
  // writes a bias first).
  bool batch = false, any_moved = false;
  for (int i = 0; i < node.input_size(); ++i) any_moved = any_moved || moved_.count(node.input(i)) > 0;
  Shape x = shape_of(0, batch);
  int first = 0;
  while (!batch && ++first < node.input_size()) x = shape_of(first, batch);
  if (!batch || (first > 0 && !any_moved)) return;
  if (first > 0 && !kElementwise.count(op)) {
    for (int i = 0; i < node.output_size(); ++i) set(i, {});
    return;
  }
  const std::vector<int64_t> xs = x.vec();
  const int64_t rank = static_cast<int64_t>(xs.size());
  if (op == "Transpose") {
    std::vector<int64_t> perm = ints_attribute(node, "perm", {}), out;
    if (perm.empty())
      for (int64_t i = rank - 1; i >= 0; --i) perm.push_back(i);
    if (static_cast<int64_t>(perm.size()) != rank) return set(0, {});
    for (int64_t p : perm) {
      if (p < 0 || p >= rank) return set(0, {});
      out.push_back(xs[p]);
    }
    return set(0, rank == 0 ? std::vector<int64_t>{} : out);
  }
  if ((op == "Unsqueeze" || op == "Squeeze") && rank > 0) {
    const auto axes = squeeze_axes(*this, node, rank);
    std::vector<int64_t> out = xs;
    if (op == "Unsqueeze") {
      for (int64_t a : axes) {
        if (a < 0 || a > static_cast<int64_t>(out.size())) return set(0, {});
        out.insert(out.begin() + a, 1);
      }
    } else {
      if (axes.empty()) return set(0, {});  // every axis of size 1: maybe the batch's
      for (auto a = axes.rbegin(); a != axes.rend(); ++a) {
        if (*a < 0 || *a >= rank || out[*a] != 1) return set(0, {});
        out.erase(out.begin() + *a);
      }
    }
    return set(0, out);
  }
  if (op == "LSTM" || op == "GRU" || op == "RNN") {
    const bool layout0 = int_attribute(node, "layout", 0) == 0;
    const int64_t d = string_attribute(node, "direction", "forward") == "bidirectional" ? 2 : 1,
                  h = int_attribute(node, "hidden_size", 0);
    if (layout0 && rank == 3 && xs[1] == -1 && xs[0] > 0 && xs[2] > 0) {  // [T, B, I]: Y [T, D, B, H], states [D, B, H]
      set(0, {xs[0], d, -1, h});
      for (int i = 1; i < 3; ++i) set(i, {d, -1, h});
    } else if (layout0 && rank == 3 && xs[0] == -1) {  // the symbolic axis is time: the states have none
      for (int i = 1; i < 3; ++i) set(i, {});
    } else if (layout0 || rank != 3 || xs[0] != -1) {
      for (int i = 0; i < 3; ++i) set(i, {});
    }
    return;
  }
  if (!any_moved) return;
  if (op == "MatMul" && rank >= 2 && first == 0) {  // [..., m, k] by [k, n], or by [..., k, n] of the same leading axes
    bool other = false;
    const Shape y = is_constant(node, 1) ? constant(node, 1).shape() : shape_of(1, other);
    std::vector<int64_t> out = xs;
    const bool fits =
        y.size() == 2 || (other && y.size() == xs.size() && std::equal(xs.begin(), xs.end() - 2, y.begin()));
    out.back() = y.size() >= 2 ? y[y.size() - 1] : 0;
    return set(0, fits && out.back() > 0 ? out : std::vector<int64_t>{});
  }
  if (op == "Gemm" && rank == 2 && is_constant(node, 1) && int_attribute(node, "transA", 0) == 0) {
    const Shape w = constant(node, 1).shape();
    return set(0, w.size() == 2 ? std::vector<int64_t>{xs[0], w[int_attribute(node, "transB", 0) ? 0 : 1]}
                                : std::vector<int64_t>{});
  }
  // An element-wise node keeps the moved input's shape when the others broadcast into it without
  // adding axes or reaching its batch; any other node loses track of it.
  bool keeps = kElementwise.count(op) > 0 && !x.empty();
  for (int i = 0; keeps && i < static_cast<int>(num_inputs(node)); ++i) {
    if (i == first) continue;
    bool other_batch = false;
    const Shape o = shape_of(i, other_batch);
    if (other_batch) {
      keeps = o == x;
      continue;
    }
    const auto v = values_.find(node.input(i));
    const Shape c = constants_.count(node.input(i)) ? constants_.at(node.input(i)).shape()
                    : v != values_.end()            ? v->second.shape()
                                                    : Shape{};
    keeps = c.size() <= xs.size();
    for (size_t k = 0; keeps && k < c.size(); ++k) {
      const int64_t mine = xs[xs.size() - c.size() + k];
      keeps = c[k] == 1 || (c[k] == mine && mine > 0);
    }
  }
  for (int i = 0; i < node.output_size(); ++i) set(i, keeps && i == 0 ? xs : std::vector<int64_t>{});
}

}  // namespace strata::onnx::detail
