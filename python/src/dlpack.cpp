#include "dlpack.hpp"

#include <vector>

namespace strata::python {
namespace {

struct Exported {
  strata::Tensor tensor;  // keeps the memory alive while the consumer holds it
  std::vector<int64_t> shape, strides;
  dl::ManagedTensor managed;
};

dl::DataType dl_dtype(DType t) {
  switch (t) {
    case kFloat32: return {dl::kFloat, 32, 1};
    case kFloat64: return {dl::kFloat, 64, 1};
    case kInt64: return {dl::kInt, 64, 1};
    case kInt32: return {dl::kInt, 32, 1};
    case kUInt8: return {dl::kUInt, 8, 1};
    default: return {dl::kBool, 8, 1};
  }
}

DType strata_dtype(const dl::DataType& d) {
  STRATA_CHECK(d.lanes == 1, "vector types (lanes ", d.lanes, ") are not supported");
  if (d.code == dl::kFloat && d.bits == 32) return kFloat32;
  if (d.code == dl::kFloat && d.bits == 64) return kFloat64;
  if (d.code == dl::kInt && d.bits == 64) return kInt64;
  if (d.code == dl::kInt && d.bits == 32) return kInt32;
  if (d.code == dl::kUInt && d.bits == 8) return kUInt8;
  if (d.code == dl::kBool && d.bits == 8) return kBool;
  throw Error("type code " + std::to_string(d.code) + " of " + std::to_string(d.bits) +
              " bits has no Strata dtype (float32, float64, int64, int32, uint8, bool)");
}

// The consumer renames the capsule when it takes ownership; otherwise its destructor frees.
void delete_unconsumed(PyObject* capsule) {
  if (PyCapsule_IsValid(capsule, "dltensor")) {
    auto* m = static_cast<dl::ManagedTensor*>(PyCapsule_GetPointer(capsule, "dltensor"));
    if (m != nullptr && m->deleter != nullptr) m->deleter(m);
  }
}

}  // namespace

py::capsule dlpack_capsule(const strata::Tensor& t, py::object, py::object, py::object, py::object copy) {
  STRATA_CHECK(copy.is_none() || !copy.cast<bool>(), "__dlpack__(copy=True) is not supported: clone() first");
  auto* e = new Exported{t, std::vector<int64_t>(t.shape().begin(), t.shape().end()),
                         std::vector<int64_t>(t.strides().begin(), t.strides().end()), {}};
  const bool cuda = t.device().type == DeviceType::CUDA;
  STRATA_CHECK(cuda || t.device() == kCPU, "DLPack: tensors on ", t.device().str(), " cannot be exported");
  e->managed.dl_tensor = {t.raw_data(),
                          {cuda ? dl::kCUDA : dl::kCPU, cuda ? t.device().index : 0},
                          t.dim(),
                          dl_dtype(t.dtype()),
                          e->shape.data(),
                          e->strides.data(),
                          0};
  e->managed.manager_ctx = e;
  e->managed.deleter = [](dl::ManagedTensor* self) { delete static_cast<Exported*>(self->manager_ctx); };
  PyObject* capsule = PyCapsule_New(&e->managed, "dltensor", &delete_unconsumed);
  if (capsule == nullptr) {
    delete e;
    throw py::error_already_set();
  }
  return py::reinterpret_steal<py::capsule>(capsule);
}

py::tuple dlpack_device(const strata::Tensor& t) {
  const bool cuda = t.device().type == DeviceType::CUDA;
  return py::make_tuple(cuda ? static_cast<int>(dl::kCUDA) : static_cast<int>(dl::kCPU), cuda ? t.device().index : 0);
}

strata::Tensor from_dlpack(py::object source) {
  py::object capsule = py::hasattr(source, "__dlpack__") ? source.attr("__dlpack__")() : source;
  STRATA_CHECK(PyCapsule_IsValid(capsule.ptr(), "dltensor"),
               "from_dlpack: expected an object with __dlpack__ or an unused \"dltensor\" capsule");
  auto* m = static_cast<dl::ManagedTensor*>(PyCapsule_GetPointer(capsule.ptr(), "dltensor"));
  const dl::Tensor& d = m->dl_tensor;
  // From here the tensor owns the producer's memory: it calls the deleter when done.
  PyCapsule_SetName(capsule.ptr(), "used_dltensor");
  auto release = [m] {
    if (m->deleter != nullptr) m->deleter(m);
  };
  try {
    const DType dtype = strata_dtype(d.dtype);
    STRATA_CHECK(d.ndim >= 0 && d.ndim <= 64, d.ndim, " dimensions");
    Device device = kCPU;
    if (d.device.device_type == dl::kCUDA) device = Device{DeviceType::CUDA, d.device.device_id};
    else STRATA_CHECK(d.device.device_type == dl::kCPU || d.device.device_type == dl::kCUDAHost,
                      "device type ", d.device.device_type, " is not supported (CPU or CUDA)");
    std::vector<int64_t> shape(d.shape, d.shape + d.ndim), strides(d.ndim);
    for (int i = d.ndim - 1; i >= 0; --i)  // null strides: compact row-major
      strides[i] = d.strides != nullptr ? d.strides[i] : (i == d.ndim - 1 ? 1 : strides[i + 1] * shape[i + 1]);
    return borrowed_tensor(static_cast<char*>(d.data) + d.byte_offset, shape, strides, dtype, device, release);
  } catch (const Error& e) {
    release();
    throw Error(std::string("DLPack: ") + e.what());
  } catch (...) {
    release();
    throw;
  }
}

}  // namespace strata::python
