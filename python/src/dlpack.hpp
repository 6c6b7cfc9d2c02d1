// DLPack (https://dmlc.github.io/dlpack/latest/): tensors exchanged with PyTorch, JAX, CuPy and
// NumPy without copies. The structs are DLPack's stable C ABI (version 0.x's DLManagedTensor,
// which every consumer accepts), declared here rather than taken from a package.
#pragma once
#include <cstdint>

#include "bindings.hpp"

namespace strata::python {

namespace dl {
enum DeviceType : int32_t { kCPU = 1, kCUDA = 2, kCUDAHost = 3 };
enum TypeCode : uint8_t { kInt = 0, kUInt = 1, kFloat = 2, kBool = 6 };
struct Device {
  int32_t device_type;
  int32_t device_id;
};
struct DataType {
  uint8_t code, bits;
  uint16_t lanes;
};
struct Tensor {
  void* data;
  Device device;
  int32_t ndim;
  DataType dtype;
  int64_t* shape;
  int64_t* strides;  // in elements; null: compact row-major
  uint64_t byte_offset;
};
struct ManagedTensor {
  Tensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(ManagedTensor* self);
};
}  // namespace dl

// t.__dlpack__(): a "dltensor" capsule viewing t (which it keeps alive until the consumer is done).
py::capsule dlpack_capsule(const strata::Tensor& t, py::object stream, py::object max_version, py::object dl_device,
                           py::object copy);
py::tuple dlpack_device(const strata::Tensor& t);
// A tensor viewing the producer's memory: an object with __dlpack__ or a "dltensor" capsule.
strata::Tensor from_dlpack(py::object source);

}  // namespace strata::python
