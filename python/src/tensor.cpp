// strata.Tensor: NumPy in and out without copies (the buffer protocol, __array__, DLPack), Python
// operators, indexing and slicing, autograd.
#include <cstring>

#include "bindings.hpp"
#include "dlpack.hpp"
#include "strata/autograd/grad_mode.hpp"
#include "strata/autograd/node.hpp"
#include "strata/core/factory.hpp"
#include "strata/ops/elementwise.hpp"
#include "strata/ops/indexing.hpp"
#include "strata/ops/linalg.hpp"
#include "strata/ops/reduce.hpp"
#include "strata/ops/shape.hpp"

namespace strata::python {
namespace {

struct DTypeName {
  DType dtype;
  const char* numpy;  // NumPy's dtype.str for the host's byte order
};
constexpr DTypeName kDTypes[] = {{kFloat32, "float32"}, {kFloat64, "float64"}, {kInt64, "int64"},
                                 {kInt32, "int32"},     {kUInt8, "uint8"},     {kBool, "bool"}};

DType dtype_of_numpy(const py::dtype& d) {
  for (const DTypeName& n : kDTypes)
    if (d.is(py::dtype(n.numpy)) || d.equal(py::dtype(n.numpy))) return n.dtype;
  throw Error("NumPy dtype '" + py::repr(d).cast<std::string>() +
              "' has no Strata counterpart (float32, float64, int64, int32, uint8, bool)");
}

// NumPy has no bfloat16: a bf16 tensor has no view or buffer, and says how to get a float32 copy.
constexpr const char* kNoBFloat16InNumpy =
    "NumPy has no bfloat16: call .float() for a float32 copy of a bfloat16 tensor";

py::dtype numpy_dtype(DType t) {
  STRATA_CHECK(t != kBFloat16, kNoBFloat16InNumpy);
  return py::dtype(dtype_name(t));
}

// The buffer protocol's struct format of each dtype.
std::string buffer_format(DType t) {
  switch (t) {
    case kFloat32: return "f";
    case kFloat64: return "d";
    case kInt64: return "q";
    case kInt32: return "i";
    case kUInt8: return "B";
    // Not a PEP 3118 format, so NumPy refuses the buffer with this text in its error. Throwing
    // is not possible here: pybind11 calls the buffer function from C without a try block.
    case kBFloat16:
      return "bfloat16 (NumPy has none: call .float() for a float32 copy)";
    default: return "?";
  }
}

// reshape(2, 3) and reshape((2, 3)) alike.
std::vector<int64_t> py_shape(const py::args& args) {
  if (args.size() == 1 && !py::isinstance<py::int_>(args[0])) return args[0].cast<std::vector<int64_t>>();
  return args.cast<std::vector<int64_t>>();
}

}  // namespace

Axes axes_of(const py::object& axis) {
  if (axis.is_none()) return {};
  if (py::isinstance<py::int_>(axis)) return Axes{axis.cast<int64_t>()};
  return Axes(axis.cast<std::vector<int64_t>>());
}

std::shared_ptr<py::object> held(py::object o) {
  return std::shared_ptr<py::object>(new py::object(std::move(o)), [](py::object* p) {
    py::gil_scoped_acquire gil;
    delete p;
  });
}

Tensor borrowed_tensor(void* data, const std::vector<int64_t>& shape, const std::vector<int64_t>& strides, DType dtype,
                       Device device, std::function<void()> release) {
  int64_t numel = 1, last = 0;  // last: the farthest element's offset, in elements
  for (size_t i = 0; i < shape.size(); ++i) {
    STRATA_CHECK(shape[i] >= 0 && strides[i] >= 0, "negative sizes or strides cannot be viewed: copy the data first");
    numel *= shape[i];
    if (shape[i] > 0) last += (shape[i] - 1) * strides[i];
  }
  const size_t nbytes = numel == 0 ? 0 : static_cast<size_t>(last + 1) * itemsize(dtype);
  auto storage = std::make_shared<Storage>(data, nbytes, device, std::move(release));
  return Tensor(std::make_shared<TensorImpl>(storage, Shape(shape), Shape(strides), 0, dtype));
}

DType parse_dtype(py::handle value) {
  if (value.is_none()) return kFloat32;
  if (py::isinstance<py::str>(value)) {
    const std::string s = value.cast<std::string>();
    for (const DTypeName& n : kDTypes)
      if (s == n.numpy) return n.dtype;
    if (s == "bfloat16") return kBFloat16;  // not a NumPy dtype, so not in kDTypes
    throw Error("unknown dtype '" + s + "': expected float32, float64, int64, int32, uint8, bool or bfloat16");
  }
  return dtype_of_numpy(py::dtype::from_args(py::reinterpret_borrow<py::object>(value)));
}

Tensor tensor_from_numpy(const py::array& array) {
  // Strata's tensors are writable: a read-only array (np.frombuffer of bytes, a broadcast view)
  // is copied rather than shared, so nothing can write into memory NumPy promised not to change.
  if (!array.writeable()) return tensor_from_numpy(py::array(array.attr("copy")()));
  const DType dtype = dtype_of_numpy(array.dtype());
  const auto item = static_cast<py::ssize_t>(itemsize(dtype));
  std::vector<int64_t> shape(array.ndim()), strides(array.ndim());
  for (py::ssize_t i = 0; i < array.ndim(); ++i) {
    const py::ssize_t s = array.strides(i);
    STRATA_CHECK(s >= 0 && s % item == 0, "a NumPy array with stride ", s, " bytes on axis ", i,
                 " cannot be viewed (Strata views need non-negative strides that are whole elements); pass "
                 "numpy.ascontiguousarray(a) to copy it");
    shape[i] = array.shape(i);
    strides[i] = s / item;
  }
  // The storage holds a reference to the array until its last view goes, on whatever thread.
  return borrowed_tensor(const_cast<void*>(array.data()), shape, strides, dtype, kCPU, [owner = held(array)] {});
}

py::array numpy_view(const Tensor& t, py::handle owner) {
  STRATA_CHECK(t.device() == kCPU, "a tensor on ", t.device().str(), " has no NumPy view: call .to('cpu') first");
  const auto item = static_cast<py::ssize_t>(itemsize(t.dtype()));
  const py::dtype dtype = numpy_dtype(t.dtype());
  std::vector<py::ssize_t> shape(t.dim()), strides(t.dim());
  for (int i = 0; i < t.dim(); ++i) {
    shape[i] = t.shape()[i];
    strides[i] = t.strides()[i] * item;
  }
  return py::array(dtype, shape, strides, t.raw_data(), owner);
}

Tensor as_tensor(py::handle value) {
  if (py::isinstance<Tensor>(value)) return value.cast<Tensor>();
  if (py::isinstance<py::array>(value)) return tensor_from_numpy(py::reinterpret_borrow<py::array>(value));
  if (py::isinstance<py::bool_>(value)) return scalar_tensor(value.cast<bool>() ? 1 : 0, kBool);
  if (py::isinstance<py::int_>(value)) return scalar_tensor(value.cast<double>(), kInt64);
  if (py::isinstance<py::float_>(value)) return scalar_tensor(value.cast<double>());
  // Lists and other sequences: NumPy reads them (and picks the dtype), then the data is copied.
  py::array a = py::module_::import("numpy").attr("asarray")(value);
  if (a.dtype().equal(py::dtype("float64")) && !py::isinstance<py::array>(value)) a = a.attr("astype")("float32");
  return tensor_from_numpy(py::array::ensure(a, py::array::c_style)).clone();
}

namespace {

// Python indexing (ints, slices, None, Ellipsis, tuples of them) as views.
Tensor index_view(const Tensor& t, py::handle key) {
  std::vector<py::object> items;
  if (py::isinstance<py::tuple>(key)) {
    for (auto k : key.cast<py::tuple>()) items.push_back(py::reinterpret_borrow<py::object>(k));
  } else {
    items.push_back(py::reinterpret_borrow<py::object>(key));
  }
  int consumed = 0;  // axes of t the key uses
  for (auto& k : items)
    if (!k.is_none() && !k.is(py::ellipsis())) ++consumed;
  STRATA_CHECK(consumed <= t.dim(), "too many indices (", consumed, ") for a tensor of ", t.dim(), " dimensions");
  Tensor out = t;
  int64_t axis = 0;
  for (auto& k : items) {
    if (k.is(py::ellipsis())) {
      axis += t.dim() - consumed;
    } else if (k.is_none()) {
      out = unsqueeze(out, axis++);
    } else if (py::isinstance<py::slice>(k)) {
      py::ssize_t start = 0, stop = 0, step = 0, length = 0;
      STRATA_CHECK(k.cast<py::slice>().compute(out.shape()[axis], &start, &stop, &step, &length), "bad slice");
      STRATA_CHECK(step > 0, "slices with a negative step are not supported");
      out = slice(out, axis, start, start + length * step, step);
      ++axis;
    } else if (py::isinstance<py::int_>(k)) {
      int64_t i = k.cast<int64_t>();
      const int64_t n = out.shape()[axis];
      if (i < 0) i += n;
      if (i < 0 || i >= n) throw py::index_error("index " + std::to_string(k.cast<int64_t>()) + " is out of range for axis " +
                                                 std::to_string(axis) + " of size " + std::to_string(n));
      out = select(out, axis, i);
    } else if (py::isinstance<Tensor>(k) || py::isinstance<py::array>(k) || py::isinstance<py::list>(k)) {
      const Tensor index = as_tensor(k);
      STRATA_CHECK(items.size() == 1, "a tensor index must be the only index");
      out = index.dtype() == kBool ? masked_select(out, index) : index_select(out, 0, flatten(index)).reshape(
                                                                       [&] {
                                                                         std::vector<int64_t> s(index.shape().begin(), index.shape().end());
                                                                         for (int d = 1; d < out.dim(); ++d) s.push_back(out.shape()[d]);
                                                                         return Shape(s);
                                                                       }());
      ++axis;
    } else {
      throw py::type_error("tensor indices must be ints, slices, None, Ellipsis or index tensors, got " +
                           py::str(py::type::of(k)).cast<std::string>());
    }
  }
  return out;
}

Tensor binary_op(const Tensor& a, py::handle b, Tensor (*op)(const Tensor&, const Tensor&), bool reversed) {
  Tensor other = as_tensor(b);
  if (other.dim() == 0 && other.dtype() != a.dtype() && !py::isinstance<Tensor>(b)) other = other.to(a.dtype());
  return reversed ? op(other, a) : op(a, other);
}

std::string repr(const Tensor& t) {
  if (!t.defined()) return "tensor(undefined)";
  return t.str();
}

}  // namespace

void bind_tensor(py::module_& m) {
  py::class_<Tensor> tensor(m, "Tensor", py::buffer_protocol(), R"doc(
An n-dimensional array with autograd, on a device. NumPy arrays cross without copies both ways:
strata.from_numpy(a) views a (keeping it alive), numpy.asarray(t) views t (keeping it alive).)doc");
  tensor.def(py::init([](py::handle data) { return as_tensor(data); }), py::arg("data"))
      .def_buffer([](Tensor& t) -> py::buffer_info {
        STRATA_CHECK(t.device() == kCPU, "a tensor on ", t.device().str(), " has no buffer: call .to('cpu') first");
        const auto item = static_cast<py::ssize_t>(itemsize(t.dtype()));
        std::vector<py::ssize_t> shape(t.shape().begin(), t.shape().end()), strides(t.dim());
        for (int i = 0; i < t.dim(); ++i) strides[i] = t.strides()[i] * item;
        return py::buffer_info(t.raw_data(), item, buffer_format(t.dtype()), t.dim(), shape, strides, false);
      })
      .def(
          "numpy", [](py::object self) { return numpy_view(self.cast<Tensor>(), self); },
          "A NumPy array viewing this tensor's memory (no copy); it keeps the tensor alive.")
      .def(
          "__array__",
          [](py::object self, py::object dtype, py::object copy) {
            py::array a = numpy_view(self.cast<Tensor>(), self);
            return dtype.is_none() ? a : py::array(a.attr("astype")(dtype));
          },
          py::arg("dtype") = py::none(), py::arg("copy") = py::none())
      .def("__dlpack__", &dlpack_capsule, py::arg("stream") = py::none(), py::arg("max_version") = py::none(),
           py::arg("dl_device") = py::none(), py::arg("copy") = py::none())
      .def("__dlpack_device__", &dlpack_device)
      .def_property_readonly(
          "shape",
          [](const Tensor& t) { return py::tuple(py::cast(std::vector<int64_t>(t.shape().begin(), t.shape().end()))); })
      .def_property_readonly("ndim", &Tensor::dim)
      .def_property_readonly("dtype", [](const Tensor& t) { return std::string(dtype_name(t.dtype())); })
      .def_property_readonly("device", [](const Tensor& t) { return t.device().str(); })
      .def("numel", &Tensor::numel)
      .def("__len__",
           [](const Tensor& t) {
             if (t.dim() == 0) throw py::type_error("len() of a 0-d tensor");
             return t.shape()[0];
           })
      .def("data_ptr", [](const Tensor& t) { return reinterpret_cast<uintptr_t>(t.raw_data()); })
      .def("item",
           [](const Tensor& t) -> py::object {
             STRATA_CHECK(t.numel() == 1, "item() needs a tensor of one element, got shape ", t.shape().str());
             const double v = t.item_double();
             if (t.dtype() == kBool) return py::bool_(v != 0);
             if (is_floating(t.dtype())) return py::float_(v);
             return py::int_(static_cast<int64_t>(v));
           })
      .def("tolist",
           [](py::object self) {
             const Tensor t = self.cast<Tensor>().to(kCPU);
             if (t.dtype() == kBFloat16) return numpy_view(t.to(kFloat32), self).attr("tolist")();  // exact values
             return numpy_view(t, self).attr("tolist")();
           })
      .def("__repr__", &repr)
      // autograd
      .def_property("requires_grad", &Tensor::requires_grad, [](Tensor& t, bool on) { t.requires_grad_(on); })
      .def(
          "requires_grad_", [](Tensor& t, bool on) { return t.requires_grad_(on); }, py::arg("requires_grad") = true)
      .def_property(
          "grad", [](const Tensor& t) -> py::object { return t.grad().defined() ? py::cast(t.grad()) : py::none(); },
          [](Tensor& t, py::object g) {
            if (g.is_none())
              t.zero_grad();
            else
              t.set_grad(as_tensor(g));
          })
      .def_property_readonly("is_leaf", &Tensor::is_leaf)
      .def_property_readonly("grad_fn",
                             [](const Tensor& t) -> py::object {
                               auto fn = t.grad_fn();
                               return fn ? py::object(py::str(fn->name())) : py::object(py::none());
                             })
      .def(
          "backward",
          [](const Tensor& t, py::object grad, bool retain_graph) {
            const Tensor g = grad.is_none() ? Tensor() : as_tensor(grad);
            py::gil_scoped_release release;
            t.backward(g, retain_graph);
          },
          py::arg("gradient") = py::none(), py::arg("retain_graph") = false)
      .def("retain_grad", &Tensor::retain_grad)
      .def("detach", &Tensor::detach)
      // views and copies
      .def("reshape", [](const Tensor& t, py::args shape) { return t.reshape(Shape(py_shape(shape))); })
      .def("view", [](const Tensor& t, py::args shape) { return t.view(Shape(py_shape(shape))); })
      .def("flatten", &Tensor::flatten, py::arg("start_dim") = 0, py::arg("end_dim") = -1)
      .def("permute", [](const Tensor& t, py::args order) { return t.permute(Shape(py_shape(order))); })
      .def("transpose", &Tensor::transpose)
      .def_property_readonly("T",
                             [](const Tensor& t) {
                               std::vector<int64_t> order(t.dim());
                               for (int i = 0; i < t.dim(); ++i) order[i] = t.dim() - 1 - i;
                               return t.permute(Shape(order));
                             })
      .def(
          "squeeze",
          [](const Tensor& t, py::object axis) {
            return axis.is_none() ? squeeze(t) : t.squeeze(axis.cast<int64_t>());
          },
          py::arg("dim") = py::none())
      .def("unsqueeze", &Tensor::unsqueeze)
      .def("contiguous", &Tensor::contiguous)
      .def("is_contiguous", &Tensor::is_contiguous)
      .def("clone", &Tensor::clone)
      .def(
          "to",
          [](const Tensor& t, const std::string& target) {
            for (const DTypeName& n : kDTypes)
              if (target == n.numpy) return t.to(n.dtype);
            if (target == "bfloat16") return t.to(kBFloat16);
            return t.to(Device::parse(target));
          },
          py::arg("dtype_or_device"))
      .def("float", [](const Tensor& t) { return t.to(kFloat32); })
      .def("double", [](const Tensor& t) { return t.to(kFloat64); })
      .def("bfloat16", [](const Tensor& t) { return t.to(kBFloat16); })
      .def("long", [](const Tensor& t) { return t.to(kInt64); })
      .def(
          "sum", [](const Tensor& t, py::object axis, bool keepdim) { return sum(t, axes_of(axis), keepdim); },
          py::arg("dim") = py::none(), py::arg("keepdim") = false)
      .def(
          "mean", [](const Tensor& t, py::object axis, bool keepdim) { return mean(t, axes_of(axis), keepdim); },
          py::arg("dim") = py::none(), py::arg("keepdim") = false)
      .def(
          "argmax", [](const Tensor& t, int64_t axis, bool keepdim) { return argmax(t, axis, keepdim); },
          py::arg("dim") = -1, py::arg("keepdim") = false)
      .def("__getitem__", &index_view)
      .def("__setitem__",
           [](Tensor& t, py::handle key, py::handle value) {
             Tensor view = index_view(t, key);
             NoGradGuard no_grad;
             copy_(view, as_tensor(value));
           })
      // operators
      .def("__neg__", [](const Tensor& a) { return -a; })
      .def("__abs__", [](const Tensor& a) { return abs(a); })
      .def("__add__", [](const Tensor& a, py::handle b) { return binary_op(a, b, &add, false); })
      .def("__radd__", [](const Tensor& a, py::handle b) { return binary_op(a, b, &add, true); })
      .def("__sub__", [](const Tensor& a, py::handle b) { return binary_op(a, b, &sub, false); })
      .def("__rsub__", [](const Tensor& a, py::handle b) { return binary_op(a, b, &sub, true); })
      .def("__mul__", [](const Tensor& a, py::handle b) { return binary_op(a, b, &mul, false); })
      .def("__rmul__", [](const Tensor& a, py::handle b) { return binary_op(a, b, &mul, true); })
      .def("__truediv__", [](const Tensor& a, py::handle b) { return binary_op(a, b, &div, false); })
      .def("__rtruediv__", [](const Tensor& a, py::handle b) { return binary_op(a, b, &div, true); })
      .def("__pow__",
           [](const Tensor& a, py::handle b) -> Tensor {
             if (py::isinstance<py::float_>(b) || py::isinstance<py::int_>(b)) return pow(a, b.cast<double>());
             return pow(a, as_tensor(b));
           })
      .def("__matmul__", [](const Tensor& a, py::handle b) { return matmul(a, as_tensor(b)); })
      .def("__rmatmul__", [](const Tensor& a, py::handle b) { return matmul(as_tensor(b), a); })
      .def("__eq__", [](const Tensor& a, py::handle b) { return binary_op(a, b, &eq, false); })
      .def("__ne__", [](const Tensor& a, py::handle b) { return binary_op(a, b, &ne, false); })
      .def("__lt__", [](const Tensor& a, py::handle b) { return binary_op(a, b, &lt, false); })
      .def("__le__", [](const Tensor& a, py::handle b) { return binary_op(a, b, &le, false); })
      .def("__gt__", [](const Tensor& a, py::handle b) { return binary_op(a, b, &gt, false); })
      .def("__ge__", [](const Tensor& a, py::handle b) { return binary_op(a, b, &ge, false); })
      .def("__bool__",
           [](const Tensor& t) {
             STRATA_CHECK(t.numel() == 1, "the truth value of a tensor of ", t.numel(), " elements is ambiguous");
             return t.item_double() != 0;
           })
      .def("__float__", [](const Tensor& t) { return t.item_double(); })
      .def("__int__", [](const Tensor& t) { return static_cast<int64_t>(t.item_double()); });
  tensor.attr("__hash__") = py::none();

  m.def("from_numpy", &tensor_from_numpy, py::arg("array"),
        "A tensor viewing the NumPy array's memory (no copy); it keeps the array alive.");
  m.def("as_tensor", &as_tensor, py::arg("data"), "A tensor, NumPy arrays viewed without a copy.");
  m.def("tensor", [](py::handle data, py::object dtype, bool requires_grad) {
        Tensor t = as_tensor(data).clone();
        if (!dtype.is_none()) t = t.to(parse_dtype(dtype));
        t.requires_grad_(requires_grad);
        return t;
      }, py::arg("data"), py::arg("dtype") = py::none(), py::arg("requires_grad") = false,
      "A new tensor holding a copy of the data (torch.tensor).");
  m.def("from_dlpack", &from_dlpack, py::arg("tensor"),
        "A tensor viewing another library's tensor through DLPack (no copy): an object with __dlpack__ or a capsule.");
  m.def("is_grad_enabled", &autograd::grad_enabled);
  m.def("set_grad_enabled", &autograd::set_grad_enabled, py::arg("mode"));
  m.def("grad", [](py::object outputs, py::object inputs, py::object grad_outputs, bool retain_graph, bool create_graph) {
        auto list = [](py::object o) {
          std::vector<Tensor> out;
          if (o.is_none()) return out;
          if (py::isinstance<Tensor>(o)) return std::vector<Tensor>{o.cast<Tensor>()};
          for (auto item : o) out.push_back(as_tensor(item));
          return out;
        };
        const auto outs = list(outputs), ins = list(inputs), gs = list(grad_outputs);
        py::gil_scoped_release release;
        return autograd::grad(outs, ins, gs, retain_graph || create_graph, create_graph);
      }, py::arg("outputs"), py::arg("inputs"), py::arg("grad_outputs") = py::none(), py::arg("retain_graph") = false,
      py::arg("create_graph") = false, "Gradients of outputs with respect to inputs (torch.autograd.grad).");
  m.def("manual_seed", &manual_seed, py::arg("seed"));
}

}  // namespace strata::python
