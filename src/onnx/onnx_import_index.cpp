// Picking and placing elements by computed or constant indices: Gather of a value (indices of any
// shape), GatherND, ScatterElements (opsets 9-10's Scatter is adapted to it) and ScatterND with
// every reduction. Each runs as a registered function whose indices are read on the host, checked
// (negative ones counted from the end) and turned into flat positions; the elements then move by
// index_select, so the functions keep Strata's autograd and take every element type.
#include <algorithm>
#include <numeric>

#include "strata/core/checked_size.hpp"
#include "strata/core/error.hpp"
#include "strata/core/factory.hpp"
#include "strata/nn/functions.hpp"
#include "strata/ops/combine.hpp"
#include "strata/ops/elementwise.hpp"
#include "strata/ops/indexing.hpp"
#include "strata/ops/shape.hpp"

#include "onnx_import.hpp"

namespace strata::onnx::detail {

namespace {

using Ws = const std::vector<Tensor>&;

// A scatter visits at most this many elements in all (data elements times the most updates one
// element gets, since each further update of one element is one more pass): a bound on what a
// hostile file's duplicate indices can cost.
constexpr int64_t kMaxScatterWork = int64_t{1} << 28;
constexpr int kMaxAxes = 8;
const char* const kReductions[] = {"none", "add", "mul", "max", "min"};

// Row-major strides of a shape, in elements.
std::vector<int64_t> strides_of(const Shape& s) {
  std::vector<int64_t> st(s.size(), 1);
  for (int64_t d = static_cast<int64_t>(s.size()) - 2; d >= 0; --d) st[d] = st[d + 1] * s[d + 1];
  return st;
}

Tensor positions(const std::vector<int64_t>& v) { return from_vector(v, Shape{static_cast<int64_t>(v.size())}); }

// The values of integer indices into an axis of n elements, negative ones counted from the end;
// any outside [-n, n) is an Error naming the function.
std::vector<int64_t> index_values(const Tensor& idx, int64_t n, const std::string& fn) {
  STRATA_CHECK(is_index_dtype(idx.dtype()), fn, ": indices must be int64 or int32, got ", dtype_name(idx.dtype()));
  std::vector<int64_t> v = cast(idx, kInt64).to_vector<int64_t>();
  for (int64_t& i : v) {
    STRATA_CHECK(i >= -n && i < n, fn, ": index ", i, " is out of range for an axis of ", n);
    if (i < 0) i += n;
  }
  return v;
}

// Gather along `axis`: x's axes before it, the indices' shape, x's axes after it.
Tensor gather_axis(const Tensor& x, int64_t axis, const Tensor& idx) {
  STRATA_CHECK(axis < x.dim(), "onnx.gather.", axis, ": no axis ", axis, " in ", x.shape().str());
  const Tensor picked = index_select(x, axis, positions(index_values(idx, x.size(axis), "onnx.gather")));
  std::vector<int64_t> shape(x.shape().begin(), x.shape().begin() + axis);
  shape.insert(shape.end(), idx.shape().begin(), idx.shape().end());
  shape.insert(shape.end(), x.shape().begin() + axis + 1, x.shape().end());
  return reshape(picked, Shape(shape));
}

// GatherND with `b` batch axes: the slices data[batch..., index tuple] (ONNX's definition).
Tensor gather_nd(const Tensor& data, const Tensor& idx, int64_t b) {
  const std::string fn = "onnx.gather_nd." + std::to_string(b);
  const int64_t r = data.dim(), q = idx.dim();
  STRATA_CHECK(q >= 1 && b < std::min(q, r), fn, ": indices ", idx.shape().str(), " do not fit data ",
               data.shape().str());
  const int64_t k = idx.size(q - 1);
  STRATA_CHECK(k >= 1 && k <= r - b, fn, ": index tuples of ", k, " do not fit data ", data.shape().str());
  for (int64_t d = 0; d < b; ++d)
    STRATA_CHECK(idx.size(d) == data.size(d), fn, ": the batch axes of indices ", idx.shape().str(), " and data ",
                 data.shape().str(), " differ");
  std::vector<int64_t> out(idx.shape().begin(), idx.shape().end() - 1);
  out.insert(out.end(), data.shape().begin() + b + k, data.shape().end());
  checked_size(out, 8, fn);
  const std::vector<int64_t> st = strides_of(data.shape());
  const int64_t inner = st[b + k - 1];  // the elements of one slice
  const std::vector<int64_t> raw = cast(idx, kInt64).to_vector<int64_t>();
  const int64_t tuples = static_cast<int64_t>(raw.size()) / k,
                batches =
                    std::accumulate(idx.shape().begin(), idx.shape().begin() + b, int64_t{1}, std::multiplies<>()),
                per_batch = batches == 0 ? 0 : tuples / batches;
  std::vector<int64_t> flat;
  flat.reserve(static_cast<size_t>(tuples * inner));
  for (int64_t t = 0; t < tuples; ++t) {
    int64_t base = b == 0 ? 0 : (t / per_batch) * st[b - 1];  // the batch's block of data
    for (int64_t i = 0; i < k; ++i) {
      int64_t v = raw[t * k + i];
      const int64_t n = data.size(b + i);
      STRATA_CHECK(v >= -n && v < n, fn, ": index ", v, " is out of range for axis ", b + i, " of ",
                   data.shape().str());
      base += (v < 0 ? v + n : v) * st[b + i];
    }
    for (int64_t e = 0; e < inner; ++e) flat.push_back(base + e);
  }
  return reshape(index_select(reshape(data, Shape{data.numel()}), 0, positions(flat)), Shape(out));
}

// data with update j written (or combined by `reduction`) at flat position target[j], in the
// order of j as ONNX's reference does: with "none" the last update of a position wins.
Tensor scatter_flat(const Tensor& data, const Tensor& updates, const std::vector<int64_t>& target,
                    const std::string& reduction, const std::string& fn) {
  const int64_t n = data.numel(), m = updates.numel();
  STRATA_CHECK(static_cast<int64_t>(target.size()) == m, fn, ": ", m, " updates for ", target.size(), " positions");
  const Tensor flat = reshape(data, Shape{n}), upd = reshape(updates, Shape{m});
  if (reduction == "none") {
    std::vector<int64_t> from(static_cast<size_t>(n));
    std::iota(from.begin(), from.end(), int64_t{0});
    for (int64_t j = 0; j < m; ++j) from[target[j]] = n + j;
    return reshape(index_select(concat({flat, upd}, 0), 0, positions(from)), data.shape());
  }
  // Pass r combines each position with its r-th update, if it has one.
  std::vector<std::vector<int64_t>> passes;
  std::vector<int64_t> seen(static_cast<size_t>(n), 0);
  for (int64_t j = 0; j < m; ++j) {
    const int64_t r = seen[target[j]]++;
    if (r == static_cast<int64_t>(passes.size())) {
      STRATA_CHECK((r + 1) * n <= kMaxScatterWork, fn, ": more than ", kMaxScatterWork / n, " updates of one element");
      passes.emplace_back(static_cast<size_t>(n), -1);
    }
    passes[r][target[j]] = j;
  }
  Tensor out = flat;
  for (const std::vector<int64_t>& pass : passes) {
    std::vector<int64_t> pick(pass.size()), has(pass.size());
    for (size_t p = 0; p < pass.size(); ++p) {
      pick[p] = std::max<int64_t>(pass[p], 0);
      has[p] = pass[p] >= 0;
    }
    const Tensor picked = index_select(upd, 0, positions(pick));
    const Tensor combined = reduction == "add"   ? out + picked
                            : reduction == "mul" ? out * picked
                            : reduction == "max" ? maximum(out, picked)
                                                 : minimum(out, picked);
    out = where(cast(positions(has), kBool), combined, out);
  }
  return reshape(out, data.shape());
}

// ScatterElements along `axis`: update at index position c goes to c with c[axis] = indices[c].
Tensor scatter_elements(const Tensor& data, const Tensor& idx, const Tensor& updates, int64_t axis,
                        const std::string& reduction) {
  const std::string fn = "onnx.scatter_elements." + std::to_string(axis) + "." + reduction;
  const int64_t r = data.dim();
  STRATA_CHECK(axis < r && idx.dim() == r && idx.shape() == updates.shape(), fn, ": indices ", idx.shape().str(),
               " and updates ", updates.shape().str(), " must have one shape of data ", data.shape().str(), "'s rank");
  for (int64_t d = 0; d < r; ++d)
    STRATA_CHECK(d == axis || idx.size(d) <= data.size(d), fn, ": indices ", idx.shape().str(), " exceed data ",
                 data.shape().str(), " on axis ", d);
  const std::vector<int64_t> v = index_values(idx, data.size(axis), fn), ist = strides_of(idx.shape()),
                             dst = strides_of(data.shape());
  std::vector<int64_t> target(v.size());
  for (size_t j = 0; j < v.size(); ++j) {
    int64_t rest = static_cast<int64_t>(j), pos = 0;
    for (int64_t d = 0; d < r; ++d) {
      const int64_t c = rest / ist[d];
      rest %= ist[d];
      pos += (d == axis ? v[j] : c) * dst[d];
    }
    target[j] = pos;
  }
  return scatter_flat(data, updates, target, reduction, fn);
}

// ScatterND: updates[t, ...] goes to data[index tuple t, ...].
Tensor scatter_nd(const Tensor& data, const Tensor& idx, const Tensor& updates, const std::string& reduction) {
  const std::string fn = "onnx.scatter_nd." + reduction;
  const int64_t r = data.dim(), q = idx.dim();
  STRATA_CHECK(q >= 1, fn, ": indices must have at least one axis");
  const int64_t k = idx.size(q - 1);
  STRATA_CHECK(k >= 1 && k <= r, fn, ": index tuples of ", k, " do not fit data ", data.shape().str());
  std::vector<int64_t> expected(idx.shape().begin(), idx.shape().end() - 1);
  expected.insert(expected.end(), data.shape().begin() + k, data.shape().end());
  STRATA_CHECK(updates.shape() == Shape(expected), fn, ": updates ", updates.shape().str(), " must have shape ",
               Shape(expected).str());
  const std::vector<int64_t> st = strides_of(data.shape()), raw = cast(idx, kInt64).to_vector<int64_t>();
  const int64_t inner = st[k - 1], tuples = static_cast<int64_t>(raw.size()) / k;
  std::vector<int64_t> target;
  target.reserve(static_cast<size_t>(tuples * inner));
  for (int64_t t = 0; t < tuples; ++t) {
    int64_t base = 0;
    for (int64_t i = 0; i < k; ++i) {
      const int64_t v = raw[t * k + i], n = data.size(i);
      STRATA_CHECK(v >= -n && v < n, fn, ": index ", v, " is out of range for axis ", i, " of ", data.shape().str());
      base += (v < 0 ? v + n : v) * st[i];
    }
    for (int64_t e = 0; e < inner; ++e) target.push_back(base + e);
  }
  return scatter_flat(data, updates, target, reduction, fn);
}

struct IndexImportRegistration {
  IndexImportRegistration() {
    for (int c = 0; c < 4; ++c)  // data and indices: values or constants
      for (int64_t axis = 0; axis < kMaxAxes; ++axis) {
        nn::register_function(with_constants("onnx.gather." + std::to_string(axis), c),
                              [=](const std::vector<Tensor>& xs, Ws w) {
                                const auto o = function_operands(xs, w, c, 2);
                                return gather_axis(o[0], axis, o[1]);
                              });
        nn::register_function(with_constants("onnx.gather_nd." + std::to_string(axis), c),
                              [=](const std::vector<Tensor>& xs, Ws w) {
                                const auto o = function_operands(xs, w, c, 2);
                                return gather_nd(o[0], o[1], axis);
                              });
      }
    for (int c = 0; c < 8; ++c)
      for (const std::string reduction : kReductions) {
        nn::register_function(with_constants("onnx.scatter_nd." + reduction, c),
                              [=](const std::vector<Tensor>& xs, Ws w) {
                                const auto o = function_operands(xs, w, c, 3);
                                return scatter_nd(o[0], o[1], o[2], reduction);
                              });
        for (int64_t axis = 0; axis < kMaxAxes; ++axis)
          nn::register_function(with_constants("onnx.scatter_elements." + std::to_string(axis) + "." + reduction, c),
                                [=](const std::vector<Tensor>& xs, Ws w) {
                                  const auto o = function_operands(xs, w, c, 3);
                                  return scatter_elements(o[0], o[1], o[2], axis, reduction);
                                });
      }
  }
};
const IndexImportRegistration index_import_registration;

// The index operators' functions: the indices, when constant, must be integers.
void index_function(Importer& im, const pb::NodeProto& node, const std::string& fn, int count,
                    const std::vector<std::string>& names) {
  require(static_cast<int>(im.num_inputs(node)) == count, im, node, "needs " + std::to_string(count) + " inputs");
  if (im.is_constant(node, 1)) {
    const DType t = im.constant(node, 1).dtype();
    require(is_index_dtype(t), im, node, "needs int64 or int32 indices");
  }
  im.set_output(node, operand_function(im, node, fn, count, names));
}

std::string reduction_of(const Importer& im, const pb::NodeProto& node) {
  const std::string reduction = string_attribute(node, "reduction", "none");
  require(std::find(std::begin(kReductions), std::end(kReductions), reduction) != std::end(kReductions), im, node,
          "reduction '" + reduction + "' is not one of none, add, mul, max, min");
  return reduction;
}

void gather_nd_op(Importer& im, const pb::NodeProto& node) {
  const int64_t b = int_attribute(node, "batch_dims", 0);
  require(b >= 0 && b < kMaxAxes && b < rank_of_input(im, node, 0), im, node,
          "batch_dims must be 0 to the data's rank - 1");
  index_function(im, node, "onnx.gather_nd." + std::to_string(b), 2, {"data", "indices"});
}

void scatter_elements_op(Importer& im, const pb::NodeProto& node) {
  const int64_t axis = axis_attribute(im, node, 0, rank_of_input(im, node, 0));
  require(axis < kMaxAxes, im, node, "axes past 7 are not supported");
  index_function(im, node, "onnx.scatter_elements." + std::to_string(axis) + "." + reduction_of(im, node), 3,
                 {"data", "indices", "updates"});
}

void scatter_nd_op(Importer& im, const pb::NodeProto& node) {
  index_function(im, node, "onnx.scatter_nd." + reduction_of(im, node), 3, {"data", "indices", "updates"});
}

}  // namespace

std::vector<Tensor> function_operands(const std::vector<Tensor>& xs, const std::vector<Tensor>& w, int constants,
                                      int count) {
  std::vector<Tensor> out;
  size_t v = 0, c = 0;
  for (int i = 0; i < count; ++i) out.push_back((constants >> i) & 1 ? w.at(c++) : xs.at(v++));
  return out;
}

std::string with_constants(const std::string& fn, int constants) { return fn + ".c" + std::to_string(constants); }

int64_t rank_of_input(Importer& im, const pb::NodeProto& node, int i) {
  return im.is_constant(node, i) ? im.constant(node, i).dim() : static_cast<int64_t>(im.value(node, i).shape().size());
}

nn::Symbol operand_function(Importer& im, const pb::NodeProto& node, const std::string& fn, int count,
                            const std::vector<std::string>& names,
                            const std::vector<std::pair<std::string, Tensor>>& extra) {
  std::vector<nn::Symbol> values;
  std::vector<std::pair<std::string, Tensor>> weights;
  int constants = 0;
  for (int i = 0; i < count; ++i) {
    if (im.is_constant(node, i)) {
      constants |= 1 << i;
      weights.push_back({names.at(i), im.constant(node, i)});
    } else {
      values.push_back(im.value(node, i));
    }
  }
  require(!values.empty(), im, node, "needs at least one computed input");
  weights.insert(weights.end(), extra.begin(), extra.end());
  return im.function(node, with_constants(fn, constants), values, weights);
}

void gather_values(Importer& im, const pb::NodeProto& node) {
  const int64_t axis = axis_attribute(im, node, 0, rank_of_input(im, node, 0));
  require(axis < kMaxAxes, im, node, "axes past 7 are not supported");
  require(!(axis == 0 && im.is_constant(node, 1) && !im.is_constant(node, 0) && im.value(node, 0).shape()[0] == -1), im,
          node, "constant indices into a symbolic batch are not supported");
  index_function(im, node, "onnx.gather." + std::to_string(axis), 2, {"data", "indices"});
}

const std::map<std::string, OpImport>& index_imports() {
  static const std::map<std::string, OpImport> table = {
      {"GatherND", gather_nd_op}, {"ScatterElements", scatter_elements_op}, {"ScatterND", scatter_nd_op}};
  return table;
}

}  // namespace strata::onnx::detail
