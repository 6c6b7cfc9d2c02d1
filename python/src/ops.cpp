// Every registered op (strata/ops/registry.hpp's table) as a function of strata: strata.relu,
// strata.matmul, strata.conv2d, ... with PyTorch's argument names where they differ from none.
// Long ops release the GIL; test_ops.py checks that every name in the registry is here.
#include <memory>

#include "bindings.hpp"
#include "strata/core/autocast.hpp"
#include "strata/core/factory.hpp"
#include "strata/ops/combine.hpp"
#include "strata/ops/conv.hpp"
#include "strata/ops/dropout.hpp"
#include "strata/ops/elementwise.hpp"
#include "strata/ops/indexing.hpp"
#include "strata/ops/linalg.hpp"
#include "strata/ops/loss.hpp"
#include "strata/ops/normalization.hpp"
#include "strata/ops/pointcloud.hpp"
#include "strata/ops/pool.hpp"
#include "strata/ops/reduce.hpp"
#include "strata/ops/registry.hpp"
#include "strata/ops/rnn.hpp"
#include "strata/ops/shape.hpp"
#include "strata/ops/softmax.hpp"
#include "strata/ops/sort.hpp"

namespace strata::python {

namespace {

using TensorList = std::vector<Tensor>;

Tensor tensor_or_none(const py::object& o) { return o.is_none() ? Tensor() : as_tensor(o); }

SpatialSizes sizes_of(const py::object& o, size_t dims) {
  if (py::isinstance<py::int_>(o)) return SpatialSizes(dims, o.cast<int64_t>());
  return o.cast<std::vector<int64_t>>();
}

Padding padding_of(const py::object& o) {
  if (py::isinstance<py::str>(o)) {
    const std::string s = o.cast<std::string>();
    if (s == "same" || s == "SAME") return Padding::same();
    if (s == "valid" || s == "VALID") return Padding::valid();
    throw Error("padding: expected \"same\", \"valid\", an int or a list of ints, got \"" + s + "\"");
  }
  std::vector<int64_t> p = py::isinstance<py::int_>(o) ? std::vector<int64_t>{o.cast<int64_t>()}
                                                        : o.cast<std::vector<int64_t>>();
  return Padding::explicit_(p, p);
}

Reduction reduction_of(const std::string& r) {
  if (r == "mean") return Reduction::mean;
  if (r == "sum") return Reduction::sum;
  if (r == "none") return Reduction::none;
  throw Error("reduction: expected \"mean\", \"sum\" or \"none\", got \"" + r + "\"");
}

template <Tensor (*F)(const Tensor&)>
void unary(py::module_& m, const char* name) {
  m.def(name, [](py::handle x) {
    const Tensor t = as_tensor(x);
    py::gil_scoped_release release;
    return F(t);
  }, py::arg("input"));
}

template <Tensor (*F)(const Tensor&, const Tensor&)>
void binary(py::module_& m, const char* name) {
  m.def(name, [](py::handle a, py::handle b) {
    const Tensor x = as_tensor(a), y = as_tensor(b);
    py::gil_scoped_release release;
    return F(x, y);
  }, py::arg("input"), py::arg("other"));
}

template <Tensor (*F)(const Tensor&, const Axes&, bool)>
void reduction(py::module_& m, const char* name) {
  m.def(name, [](py::handle x, py::object dim, bool keepdim) {
    const Tensor t = as_tensor(x);
    const Axes axes = axes_of(dim);
    py::gil_scoped_release release;
    return F(t, axes, keepdim);
  }, py::arg("input"), py::arg("dim") = py::none(), py::arg("keepdim") = false);
}

template <Tensor (*F)(const Tensor&, const Tensor&, const Tensor&, const ConvOptions&)>
void convolution(py::module_& m, const char* name, size_t dims) {
  m.def(name, [dims](py::handle x, py::handle w, py::object b, py::object stride, py::object padding,
                     py::object dilation, int64_t groups) {
    const Tensor xt = as_tensor(x), wt = as_tensor(w), bt = tensor_or_none(b);
    const ConvOptions o{sizes_of(stride, dims), padding_of(padding), sizes_of(dilation, dims), groups};
    py::gil_scoped_release release;
    return F(xt, wt, bt, o);
  }, py::arg("input"), py::arg("weight"), py::arg("bias") = py::none(), py::arg("stride") = 1,
     py::arg("padding") = "valid", py::arg("dilation") = 1, py::arg("groups") = 1,
     "Channels-last input [N, spatial..., C], weight [k..., C, O] (TensorLayer's layouts).");
}

template <Tensor (*F)(const Tensor&, const SpatialSizes&, const PoolOptions&)>
void pooling(py::module_& m, const char* name, size_t dims) {
  m.def(name, [dims](py::handle x, py::object kernel, py::object stride, py::object padding) {
    const Tensor xt = as_tensor(x);
    const PoolOptions o{stride.is_none() ? SpatialSizes{} : sizes_of(stride, dims), padding_of(padding)};
    const SpatialSizes k = sizes_of(kernel, dims);
    py::gil_scoped_release release;
    return F(xt, k, o);
  }, py::arg("input"), py::arg("kernel_size"), py::arg("stride") = py::none(), py::arg("padding") = "valid");
}

}  // namespace

namespace {

// `with strata.autocast_bf16() as active:` opens an AutocastBF16 scope on this thread for the block.
struct PyAutocastBF16 {
  bool enabled = true;
  std::unique_ptr<AutocastBF16> scope;
};

}  // namespace

void bind_ops(py::module_& m) {
  // Element-wise.
  // The unary list (core/unary_ops.hpp); ops with parameters are bound below with their names.
  for (const UnaryFunction& u : unary_functions()) {
    if (u.defaults) continue;
    m.def(u.name, [fn = u.fn](py::handle x) {
      const Tensor t = as_tensor(x);
      py::gil_scoped_release release;
      return fn(t);
    }, py::arg("input"));
  }
  unary<&contiguous>(m, "contiguous");
  unary<&clone>(m, "clone");
  m.def("leaky_relu", [](py::handle x, double slope) { return leaky_relu(as_tensor(x), slope); }, py::arg("input"),
        py::arg("negative_slope") = 0.2);
  m.def("elu", [](py::handle x, double alpha) { return elu(as_tensor(x), alpha); }, py::arg("input"),
        py::arg("alpha") = 1.0);
  m.def("clamp", [](py::handle x, double low, double high) { return clamp(as_tensor(x), low, high); }, py::arg("input"),
        py::arg("min"), py::arg("max"));
  m.def("pow", [](py::handle x, py::handle e) -> Tensor {
    if (py::isinstance<py::float_>(e) || py::isinstance<py::int_>(e)) return pow(as_tensor(x), e.cast<double>());
    return pow(as_tensor(x), as_tensor(e));
  }, py::arg("input"), py::arg("exponent"));
  m.attr("pow_scalar") = m.attr("pow");
  binary<&add>(m, "add");
  binary<&sub>(m, "sub");
  binary<&mul>(m, "mul");
  binary<&div>(m, "div");
  binary<&maximum>(m, "maximum");
  binary<&minimum>(m, "minimum");
  binary<&eq>(m, "eq");
  binary<&ne>(m, "ne");
  binary<&lt>(m, "lt");
  binary<&le>(m, "le");
  binary<&gt>(m, "gt");
  binary<&ge>(m, "ge");
  binary<&logical_and>(m, "logical_and");
  binary<&logical_or>(m, "logical_or");
  binary<&matmul>(m, "matmul");
  binary<&outer>(m, "outer");
  m.def("where", [](py::handle c, py::handle a, py::handle b) { return where(as_tensor(c), as_tensor(a), as_tensor(b)); },
        py::arg("condition"), py::arg("input"), py::arg("other"));
  m.def("cast", [](py::handle x, py::handle dtype) { return cast(as_tensor(x), parse_dtype(dtype)); }, py::arg("input"),
        py::arg("dtype"));
  py::class_<PyAutocastBF16>(m, "autocast_bf16", R"doc(
bf16 mixed precision, as torch.autocast("cpu", dtype=torch.bfloat16): inside the block, matmul, linear
and convolution (forward and backward) run in bf16 with float32 results. ``as`` gives whether bf16
runs: False on a CPU without native bf16 (the float32 fallback; docs/mixed_precision.md).)doc")
      .def(py::init([](bool enabled) {
             return PyAutocastBF16{enabled, nullptr};
           }),
           py::arg("enabled") = true)
      .def("__enter__",
           [](PyAutocastBF16& a) {
             a.scope = std::make_unique<AutocastBF16>(a.enabled);
             return a.scope->active();
           })
      .def("__exit__", [](PyAutocastBF16& a, const py::args&) { a.scope.reset(); });
  m.def("to_device", [](py::handle x, const std::string& device) { return to_device(as_tensor(x), Device::parse(device)); },
        py::arg("input"), py::arg("device"));
  m.def("linear", [](py::handle x, py::handle w, py::object b) { return linear(as_tensor(x), as_tensor(w), tensor_or_none(b)); },
        py::arg("input"), py::arg("weight"), py::arg("bias") = py::none(), "x · W + b with W [in, out] (TensorLayer's layout).");

  // Reductions.
  reduction<&sum>(m, "sum");
  reduction<&mean>(m, "mean");
  reduction<&prod>(m, "prod");
  reduction<&amax>(m, "amax");
  reduction<&amin>(m, "amin");
  reduction<&logsumexp>(m, "logsumexp");
  m.def("var", [](py::handle x, py::object dim, int64_t correction, bool keepdim) {
    return var(as_tensor(x), axes_of(dim), correction, keepdim);
  }, py::arg("input"), py::arg("dim") = py::none(), py::arg("correction") = 1, py::arg("keepdim") = false);
  m.def("std", [](py::handle x, py::object dim, int64_t correction, bool keepdim) {
    return std(as_tensor(x), axes_of(dim), correction, keepdim);
  }, py::arg("input"), py::arg("dim") = py::none(), py::arg("correction") = 1, py::arg("keepdim") = false);
  m.def("norm", [](py::handle x, double p, py::object dim, bool keepdim) { return norm(as_tensor(x), p, axes_of(dim), keepdim); },
        py::arg("input"), py::arg("p") = 2.0, py::arg("dim") = py::none(), py::arg("keepdim") = false);
  m.def("cumsum", [](py::handle x, int64_t dim) { return cumsum(as_tensor(x), dim); }, py::arg("input"), py::arg("dim"));
  m.def("argmax", [](py::handle x, int64_t dim, bool keepdim) { return argmax(as_tensor(x), dim, keepdim); },
        py::arg("input"), py::arg("dim") = -1, py::arg("keepdim") = false);
  m.def("argmin", [](py::handle x, int64_t dim, bool keepdim) { return argmin(as_tensor(x), dim, keepdim); },
        py::arg("input"), py::arg("dim") = -1, py::arg("keepdim") = false);
  m.def("softmax", [](py::handle x, int64_t dim) { return softmax(as_tensor(x), dim); }, py::arg("input"), py::arg("dim") = -1);
  m.def("log_softmax", [](py::handle x, int64_t dim) { return log_softmax(as_tensor(x), dim); }, py::arg("input"),
        py::arg("dim") = -1);

  // Shapes.
  m.def("reshape", [](py::handle x, std::vector<int64_t> s) { return reshape(as_tensor(x), Shape(s)); }, py::arg("input"), py::arg("shape"));
  m.def("permute", [](py::handle x, std::vector<int64_t> o) { return permute(as_tensor(x), Shape(o)); }, py::arg("input"), py::arg("dims"));
  m.def("transpose", [](py::handle x, int64_t a, int64_t b) { return transpose(as_tensor(x), a, b); }, py::arg("input"),
        py::arg("dim0"), py::arg("dim1"));
  m.def("squeeze", [](py::handle x, py::object dim) { return dim.is_none() ? squeeze(as_tensor(x)) : squeeze(as_tensor(x), dim.cast<int64_t>()); },
        py::arg("input"), py::arg("dim") = py::none());
  m.def("unsqueeze", [](py::handle x, int64_t dim) { return unsqueeze(as_tensor(x), dim); }, py::arg("input"), py::arg("dim"));
  m.def("flatten", [](py::handle x, int64_t s, int64_t e) { return flatten(as_tensor(x), s, e); }, py::arg("input"),
        py::arg("start_dim") = 0, py::arg("end_dim") = -1);
  m.def("slice", [](py::handle x, int64_t axis, int64_t start, int64_t end, int64_t step) { return slice(as_tensor(x), axis, start, end, step); },
        py::arg("input"), py::arg("dim"), py::arg("start"), py::arg("end"), py::arg("step") = 1);
  m.def("select", [](py::handle x, int64_t axis, int64_t i) { return select(as_tensor(x), axis, i); }, py::arg("input"),
        py::arg("dim"), py::arg("index"));
  m.def("expand", [](py::handle x, std::vector<int64_t> s) { return expand(as_tensor(x), Shape(s)); }, py::arg("input"), py::arg("size"));
  m.def("concat", [](const TensorList& xs, int64_t dim) { return concat(xs, dim); }, py::arg("tensors"), py::arg("dim") = 0);
  m.attr("cat") = m.attr("concat");
  m.def("stack", [](const TensorList& xs, int64_t dim) { return stack(xs, dim); }, py::arg("tensors"), py::arg("dim") = 0);
  m.def("split", [](py::handle x, py::object size, int64_t dim) {
    return py::isinstance<py::int_>(size) ? split(as_tensor(x), size.cast<int64_t>(), dim)
                                          : split(as_tensor(x), size.cast<std::vector<int64_t>>(), dim);
  }, py::arg("input"), py::arg("split_size_or_sections"), py::arg("dim") = 0);
  m.def("chunk", [](py::handle x, int64_t n, int64_t dim) { return chunk(as_tensor(x), n, dim); }, py::arg("input"),
        py::arg("chunks"), py::arg("dim") = 0);
  m.def("pad", [](py::handle x, std::vector<std::pair<int64_t, int64_t>> pads, const std::string& mode, double value) {
    PadMode pad_mode = PadMode::constant;
    if (mode == "reflect") pad_mode = PadMode::reflect;
    else if (mode == "replicate" || mode == "edge") pad_mode = PadMode::replicate;
    else STRATA_CHECK(mode == "constant", "pad: unknown mode '", mode, "' (constant, reflect, replicate)");
    return pad(as_tensor(x), pads, pad_mode, value);
  }, py::arg("input"), py::arg("pad"), py::arg("mode") = "constant", py::arg("value") = 0.0,
     "pad: one (before, after) pair per axis, from the first.");
  m.def("tile", [](py::handle x, std::vector<int64_t> r) { return tile(as_tensor(x), r); }, py::arg("input"), py::arg("dims"));
  m.def("flip", [](py::handle x, std::vector<int64_t> a) { return flip(as_tensor(x), a); }, py::arg("input"), py::arg("dims"));
  m.def("roll", [](py::handle x, std::vector<int64_t> s, std::vector<int64_t> a) { return roll(as_tensor(x), s, a); },
        py::arg("input"), py::arg("shifts"), py::arg("dims") = std::vector<int64_t>{});

  // Indexing.
  m.def("index_select", [](py::handle x, int64_t dim, py::handle i) { return index_select(as_tensor(x), dim, as_tensor(i)); },
        py::arg("input"), py::arg("dim"), py::arg("index"));
  m.def("gather", [](py::handle x, int64_t dim, py::handle i) { return gather(as_tensor(x), dim, as_tensor(i)); },
        py::arg("input"), py::arg("dim"), py::arg("index"));
  m.def("scatter_add", [](py::handle x, int64_t dim, py::handle i, py::handle s) {
    return scatter_add(as_tensor(x), dim, as_tensor(i), as_tensor(s));
  }, py::arg("input"), py::arg("dim"), py::arg("index"), py::arg("src"));
  m.def("masked_select", [](py::handle x, py::handle mask) { return masked_select(as_tensor(x), as_tensor(mask)); },
        py::arg("input"), py::arg("mask"));
  m.def("masked_fill", [](py::handle x, py::handle mask, double v) { return masked_fill(as_tensor(x), as_tensor(mask), v); },
        py::arg("input"), py::arg("mask"), py::arg("value"));
  m.def("one_hot", [](py::handle ids, int64_t depth) { return one_hot(as_tensor(ids), depth); }, py::arg("input"),
        py::arg("num_classes") = -1);
  m.def("embedding", [](py::handle ids, py::handle w) { return embedding(as_tensor(w), as_tensor(ids)); }, py::arg("input"),
        py::arg("weight"));
  m.def("sort", [](py::handle x, int64_t dim, bool descending) {
    auto r = sort(as_tensor(x), dim, descending);
    return py::make_tuple(r.values, r.indices);
  }, py::arg("input"), py::arg("dim") = -1, py::arg("descending") = false);
  m.def("topk", [](py::handle x, int64_t k, int64_t dim, bool largest, bool sorted) {
    auto r = topk(as_tensor(x), k, dim, largest, sorted);
    return py::make_tuple(r.values, r.indices);
  }, py::arg("input"), py::arg("k"), py::arg("dim") = -1, py::arg("largest") = true, py::arg("sorted") = true);

  // Convolution and pooling (channels last).
  convolution<&conv1d>(m, "conv1d", 1);
  convolution<&conv2d>(m, "conv2d", 2);
  convolution<&conv3d>(m, "conv3d", 3);
  pooling<&max_pool1d>(m, "max_pool1d", 1);
  pooling<&max_pool2d>(m, "max_pool2d", 2);
  pooling<&max_pool3d>(m, "max_pool3d", 3);
  pooling<&avg_pool1d>(m, "avg_pool1d", 1);
  pooling<&avg_pool2d>(m, "avg_pool2d", 2);
  pooling<&avg_pool3d>(m, "avg_pool3d", 3);
  m.def("conv_transpose1d", [](py::handle x, py::handle w, py::object b, int64_t stride, const std::string& padding) {
    return conv_transpose1d(as_tensor(x), as_tensor(w), tensor_or_none(b), {.stride = {stride}, .padding = padding_of(py::str(padding))});
  }, py::arg("input"), py::arg("weight"), py::arg("bias") = py::none(), py::arg("stride") = 1, py::arg("padding") = "valid");
  m.def("conv_transpose2d", [](py::handle x, py::handle w, py::object b, py::object stride, const std::string& padding) {
    return conv_transpose2d(as_tensor(x), as_tensor(w), tensor_or_none(b),
                            {.stride = sizes_of(stride, 2), .padding = padding_of(py::str(padding))});
  }, py::arg("input"), py::arg("weight"), py::arg("bias") = py::none(), py::arg("stride") = 1, py::arg("padding") = "valid");
  m.def("conv_transpose3d", [](py::handle x, py::handle w, py::object b, py::object stride, const std::string& padding) {
    return conv_transpose3d(as_tensor(x), as_tensor(w), tensor_or_none(b),
                            {.stride = sizes_of(stride, 3), .padding = padding_of(py::str(padding))});
  }, py::arg("input"), py::arg("weight"), py::arg("bias") = py::none(), py::arg("stride") = 1, py::arg("padding") = "valid");

  // Networks' ops and losses.
  m.def("dropout", [](py::handle x, double p, bool training) { return dropout(as_tensor(x), p, training); }, py::arg("input"),
        py::arg("p") = 0.5, py::arg("training") = true);
  m.def("batch_norm", [](py::handle x, py::object gamma, py::object beta, py::object mean, py::object var, bool training,
                         double momentum, double eps) {
    return batch_norm(as_tensor(x), tensor_or_none(gamma), tensor_or_none(beta), tensor_or_none(mean), tensor_or_none(var),
                      training, momentum, eps);
  }, py::arg("input"), py::arg("weight") = py::none(), py::arg("bias") = py::none(), py::arg("running_mean") = py::none(),
     py::arg("running_var") = py::none(), py::arg("training") = false, py::arg("momentum") = 0.1, py::arg("eps") = 1e-5);
  m.def("layer_norm", [](py::handle x, std::vector<int64_t> shape, py::object gamma, py::object beta, double eps) {
    return layer_norm(as_tensor(x), shape, tensor_or_none(gamma), tensor_or_none(beta), eps);
  }, py::arg("input"), py::arg("normalized_shape"), py::arg("weight") = py::none(), py::arg("bias") = py::none(),
     py::arg("eps") = 1e-5);
  m.def("lstm_cell", [](py::handle xg, py::handle hg, py::handle c) { return lstm_cell(as_tensor(xg), as_tensor(hg), as_tensor(c)); },
        py::arg("x_gates"), py::arg("h_gates"), py::arg("c"));
  m.def("gru_cell", [](py::handle xg, py::handle hg, py::handle h) { return gru_cell(as_tensor(xg), as_tensor(hg), as_tensor(h)); },
        py::arg("x_gates"), py::arg("h_gates"), py::arg("h"));
  auto loss = [&m](const char* name, Tensor (*f)(const Tensor&, const Tensor&, Reduction)) {
    m.def(name, [f](py::handle input, py::handle target, const std::string& reduction) {
      const Tensor a = as_tensor(input), b = as_tensor(target);
      const Reduction r = reduction_of(reduction);
      py::gil_scoped_release release;
      return f(a, b, r);
    }, py::arg("input"), py::arg("target"), py::arg("reduction") = "mean");
  };
  loss("cross_entropy", &cross_entropy);
  loss("nll_loss", &nll_loss);
  loss("mse_loss", &mse_loss);
  loss("l1_loss", &l1_loss);
  m.def("binary_cross_entropy_with_logits", [](py::handle input, py::handle target, const std::string& reduction) {
    return binary_cross_entropy_with_logits(as_tensor(input), as_tensor(target), reduction_of(reduction));
  }, py::arg("input"), py::arg("target"), py::arg("reduction") = "mean");
  m.def("huber_loss", [](py::handle input, py::handle target, const std::string& reduction, double delta) {
    return huber_loss(as_tensor(input), as_tensor(target), reduction_of(reduction), delta);
  }, py::arg("input"), py::arg("target"), py::arg("reduction") = "mean", py::arg("delta") = 1.0);

  // Factories.
  auto options = [](py::object dtype, const std::string& device) { return TensorOptions{parse_dtype(dtype), Device::parse(device)}; };
  m.def("zeros", [options](std::vector<int64_t> s, py::object dtype, const std::string& device) { return zeros(Shape(s), options(dtype, device)); },
        py::arg("shape"), py::arg("dtype") = py::none(), py::arg("device") = "cpu");
  m.def("ones", [options](std::vector<int64_t> s, py::object dtype, const std::string& device) { return ones(Shape(s), options(dtype, device)); },
        py::arg("shape"), py::arg("dtype") = py::none(), py::arg("device") = "cpu");
  m.def("full", [options](std::vector<int64_t> s, double v, py::object dtype, const std::string& device) {
    return full(Shape(s), v, options(dtype, device));
  }, py::arg("shape"), py::arg("fill_value"), py::arg("dtype") = py::none(), py::arg("device") = "cpu");
  m.def("rand", [options](std::vector<int64_t> s, py::object dtype) { return rand(Shape(s), options(dtype, "cpu")); },
        py::arg("shape"), py::arg("dtype") = py::none());
  m.def("randn", [options](std::vector<int64_t> s, py::object dtype) { return randn(Shape(s), options(dtype, "cpu")); },
        py::arg("shape"), py::arg("dtype") = py::none());
  m.def("arange", [](double start, py::object end, double step, py::object dtype) {
    if (end.is_none()) return arange(0, start, step, dtype.is_none() ? kInt64 : parse_dtype(dtype));
    return arange(start, end.cast<double>(), step, dtype.is_none() ? kInt64 : parse_dtype(dtype));
  }, py::arg("start"), py::arg("end") = py::none(), py::arg("step") = 1.0, py::arg("dtype") = py::none());
  m.def("eye", [](int64_t n, int64_t k) { return eye(n, k); }, py::arg("n"), py::arg("m") = -1);

  // Point clouds (strata/ops/pointcloud.hpp, docs/pointclouds.md): searches of milliseconds, run
  // without the GIL.
  m.def("farthest_point_sample", [](py::handle points, int64_t m) {
    const Tensor p = as_tensor(points);
    py::gil_scoped_release release;
    return farthest_point_sample(p, m);
  }, py::arg("points"), py::arg("m"), "int64 [B, m] indices of points [B, N, D], PointNet++'s furthest point sampling.");
  m.def("knn", [](py::handle queries, py::handle points, int64_t k) {
    const Tensor q = as_tensor(queries), p = as_tensor(points);
    py::gil_scoped_release release;
    return knn(q, p, k);
  }, py::arg("queries"), py::arg("points"), py::arg("k"), "int64 [B, Q, k]: each query's k nearest points, nearest first.");
  m.def("ball_query", [](py::handle queries, py::handle points, double radius, int64_t samples) {
    const Tensor q = as_tensor(queries), p = as_tensor(points);
    py::gil_scoped_release release;
    return ball_query(q, p, radius, samples);
  }, py::arg("queries"), py::arg("points"), py::arg("radius"), py::arg("samples"),
     "int64 [B, Q, samples]: points within radius in index order, padded with the first found (PointNet++).");
  m.def("group_points", [](py::handle features, py::handle idx) { return group_points(as_tensor(features), as_tensor(idx)); },
        py::arg("features"), py::arg("idx"), "features [B, N, C] at idx [B, ...] -> [B, ..., C] (differentiable).");
  m.def("three_interpolate", [](py::handle features, py::handle known, py::handle unknown) {
    return three_interpolate(as_tensor(features), as_tensor(known), as_tensor(unknown));
  }, py::arg("features"), py::arg("known"), py::arg("unknown"),
     "Features of known points carried to unknown ones by inverse-distance weights of the three nearest.");
  m.def("chamfer_distance", [](py::handle a, py::handle b) { return chamfer_distance(as_tensor(a), as_tensor(b)); },
        py::arg("a"), py::arg("b"), "[B]: mean nearest squared distance from a to b plus from b to a (differentiable).");

  // The op registry's names, for completeness checks and discovery.
  std::vector<std::string> names;
  for (const auto& info : ops::op_table) names.emplace_back(info.name);
  m.attr("registered_ops") = names;
}

}  // namespace strata::python
