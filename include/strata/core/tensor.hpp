// Tensor: an n-dimensional view (shape, strides, offset, dtype) of a shared Storage, with
// optional autograd metadata. Value semantics like torch::Tensor: copying a Tensor shares its
// data; clone() copies it. A default-constructed Tensor is "undefined".
//
// The view and math methods below are sugar for the functional API in strata/ops and are
// defined there, so they record autograd history exactly like the free functions.
#pragma once
#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "strata/core/device.hpp"
#include "strata/core/dtype.hpp"
#include "strata/core/shape.hpp"
#include "strata/core/storage.hpp"
#include "strata/core/tensor_options.hpp"

namespace strata {

class Tensor;
namespace autograd {
class Node;
}  // namespace autograd

// What core knows of a tensor's autograd metadata (as c10's AutogradMetaInterface): that it can
// be freed. autograd, above core on the module map, derives its AutogradMeta from it.
struct AutogradMetaInterface {
  virtual ~AutogradMetaInterface() = default;
};

class TensorImpl {
 public:
  TensorImpl(std::shared_ptr<Storage> storage, Shape shape, Shape strides, int64_t offset, DType dtype);
  ~TensorImpl();

  std::shared_ptr<Storage> storage;
  Shape shape;
  Shape strides;       // in elements
  int64_t offset = 0;  // in elements
  DType dtype;
  std::unique_ptr<AutogradMetaInterface> autograd;  // null until autograd touches the tensor
};

using GradHook = std::function<Tensor(const Tensor&)>;

class Tensor {
 public:
  Tensor() = default;
  explicit Tensor(std::shared_ptr<TensorImpl> impl) : impl_(std::move(impl)) {}

  // A new contiguous tensor with uninitialised data.
  static Tensor empty(const Shape& shape, DType dtype = kFloat32, Device device = kCPU);
  // A view of this tensor's storage with other sizes and strides (no autograd history).
  Tensor as_strided(const Shape& shape, const Shape& strides, int64_t offset) const;

  bool defined() const { return impl_ != nullptr; }
  const Shape& shape() const { return impl_->shape; }
  const Shape& strides() const { return impl_->strides; }
  int64_t offset() const { return impl_->offset; }
  int dim() const { return impl_->shape.size(); }
  int64_t size(int64_t axis) const;  // negative axes count from the end
  int64_t numel() const { return impl_->shape.numel(); }
  DType dtype() const { return impl_->dtype; }
  Device device() const { return impl_->storage->device(); }
  TensorOptions options() const { return {dtype(), device()}; }
  bool is_meta() const { return device().type == DeviceType::Meta; }
  bool is_contiguous() const;
  size_t nbytes() const { return numel() * itemsize(dtype()); }

  // Pointer to the first element, in the device's memory (host code may dereference it only on
  // a host-accessible device). data<T>() checks that T matches the dtype.
  void* raw_data() const {
    if (impl_->storage->device().type == DeviceType::Meta) [[unlikely]]
      throw_no_data();
    return static_cast<char*>(impl_->storage->data()) + impl_->offset * itemsize(impl_->dtype);
  }
  template <class T>
  T* data() const {
    check_dtype(dtype_of<T>::value, "data<T>()");
    return static_cast<T*>(raw_data());
  }
  // The single value of a one-element tensor, converted to T (copied to the host if need be).
  template <class T>
  T item() const {
    return static_cast<T>(item_double());
  }
  double item_double() const;
  // All values, converted to T, in row-major order (copied to the host if need be).
  template <class T>
  std::vector<T> to_vector() const;

  // --- autograd ---
  bool requires_grad() const;
  Tensor& requires_grad_(bool on = true);
  Tensor grad() const;           // undefined until a backward pass reaches this tensor
  void set_grad(const Tensor& g);
  void zero_grad();              // drops the accumulated gradient
  std::shared_ptr<autograd::Node> grad_fn() const;
  bool is_leaf() const { return grad_fn() == nullptr; }
  // Backpropagates from this tensor. A scalar needs no `grad`; others need one of its shape.
  void backward(const Tensor& grad = Tensor(), bool retain_graph = false) const;
  // `hook(g)` sees this tensor's gradient before it is used; return a tensor to replace it,
  // or an undefined tensor to keep it.
  void register_hook(GradHook hook);
  void retain_grad();            // keep .grad() on a non-leaf tensor
  Tensor detach() const;         // same data, no history

  // --- sugar for strata/ops ---
  Tensor reshape(const Shape& shape) const;
  Tensor view(const Shape& shape) const;
  Tensor flatten(int64_t start_axis = 0, int64_t end_axis = -1) const;
  Tensor permute(const Shape& order) const;
  Tensor transpose(int64_t a, int64_t b) const;
  Tensor squeeze(int64_t axis) const;
  Tensor unsqueeze(int64_t axis) const;
  Tensor narrow(int64_t axis, int64_t start, int64_t length) const;
  Tensor select(int64_t axis, int64_t index) const;
  Tensor expand(const Shape& shape) const;
  Tensor contiguous() const;
  Tensor clone() const;
  Tensor to(DType dtype) const;
  Tensor to(Device device) const;  // a copy on `device` (this tensor when already there)
  Tensor sum() const;
  Tensor mean() const;

  std::string str() const;  // like PyTorch's repr: values (summarised), shape, dtype
  TensorImpl* impl() const { return impl_.get(); }
  const std::shared_ptr<TensorImpl>& impl_ptr() const { return impl_; }
  bool is_same(const Tensor& o) const { return impl_ == o.impl_; }
  void check_dtype(DType expected, const char* what) const;

 private:
  [[noreturn]] static void throw_no_data();
  std::shared_ptr<TensorImpl> impl_;
};

std::ostream& operator<<(std::ostream& os, const Tensor& t);

}  // namespace strata
