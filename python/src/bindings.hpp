// The `strata` Python module (_strata): one bind_* function per part of the library, each in its
// own file; helpers they share are declared here.
#pragma once
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <mutex>

#include <nlohmann/json.hpp>

#include "strata/core/tensor.hpp"

namespace strata::python {

namespace py = pybind11;

void bind_errors(py::module_& m);
void bind_tensor(py::module_& m);
void bind_ops(py::module_& m);
void bind_nn(py::module_& m);
void bind_train(py::module_& m);
void bind_hub(py::module_& m);
void bind_data(py::module_& m);
void bind_text(py::module_& data);  // strata.data's text corpora (text.cpp)
void bind_points(py::module_& m);
void bind_rl(py::module_& m);
void bind_workflow(py::module_& m);
void bind_serve(py::module_& m);

// A NumPy array viewed as a tensor without a copy (the tensor keeps the array alive). Arrays of
// other dtypes, or with negative or misaligned strides, are refused with a clear error.
Tensor tensor_from_numpy(const py::array& array);
// A NumPy array viewing the tensor's memory (it keeps the tensor alive); CPU tensors only.
py::array numpy_view(const Tensor& t, py::handle owner);
// A Tensor, a NumPy array (viewed), a Python number or nested list (copied) as a tensor.
Tensor as_tensor(py::handle value);

// A dtype given as NumPy's name ("float32") or a NumPy dtype; None: float32.
DType parse_dtype(py::handle value);
// Reduction axes from Python: None (all of them), an int, or a sequence of ints.
std::vector<int64_t> axes_of(const py::object& axis);
// A tensor over memory another library owns (a NumPy array, a DLPack tensor): `strides` in
// elements, non-negative; `release` runs when the last view goes. Its byte size is the farthest
// element's end, so a strided view needs no copy.
Tensor borrowed_tensor(void* data, const std::vector<int64_t>& shape, const std::vector<int64_t>& strides, DType dtype,
                       Device device, std::function<void()> release);
// A Python object that C++ code keeps and may drop on any thread: dropped with the GIL taken.
std::shared_ptr<py::object> held(py::object o);

// Python values (None, bool, int, float, str, lists, tuples, dicts) as JSON and back, for layer
// options and hub records; anything else is refused naming `what`.
nlohmann::json to_json(py::handle value, const std::string& what);
py::object from_json(const nlohmann::json& value);

// Every layer call holds that layer's own lock (nn::Layer), so calls are safe however layers are
// shared. A whole fit, evaluate or predict is more than calls: the outermost call from Python
// into a layer (a call, fit, evaluate, predict) also holds a lock of that layer's, one of 256
// picked by its address, taken with the GIL released, so that no call of that layer from another
// thread runs between a fit's steps. Calls made inside it take none of these, so a thread holds
// one of them at a time and takes it before any layer's own lock: none can deadlock.
class LayerCallGuard {
 public:
  explicit LayerCallGuard(const void* layer);
  ~LayerCallGuard();
  LayerCallGuard(const LayerCallGuard&) = delete;
  LayerCallGuard& operator=(const LayerCallGuard&) = delete;

 private:
  std::mutex* held_ = nullptr;
};

}  // namespace strata::python
