#include "strata/core/tensor.hpp"

#include "strata/core/device_copy.hpp"

namespace strata {

TensorImpl::TensorImpl(std::shared_ptr<Storage> storage_, Shape shape_, Shape strides_, int64_t offset_, DType dtype_)
    : storage(std::move(storage_)), shape(shape_), strides(strides_), offset(offset_), dtype(dtype_) {}

TensorImpl::~TensorImpl() = default;

Tensor Tensor::empty(const Shape& shape, DType dtype, Device device) {
  for (int64_t d : shape) STRATA_CHECK(d >= 0, "empty: negative dimension in shape ", shape.str());
  auto storage = std::make_shared<Storage>(shape.numel() * itemsize(dtype), device);
  return Tensor(std::make_shared<TensorImpl>(std::move(storage), shape, contiguous_strides(shape), 0, dtype));
}

void Tensor::throw_no_data() {
  throw NoDataError("this tensor is on the meta device: it has a shape and a dtype but no data");
}

Tensor Tensor::as_strided(const Shape& shape, const Shape& strides, int64_t offset) const {
  return Tensor(std::make_shared<TensorImpl>(impl_->storage, shape, strides, offset, impl_->dtype));
}

int64_t Tensor::size(int64_t axis) const { return shape()[normalize_axis(axis, dim(), "size")]; }

bool Tensor::is_contiguous() const {
  if (numel() == 0) return true;  // no element is out of place (PyTorch's rule too)
  int64_t expected = 1;
  for (int d = dim() - 1; d >= 0; --d) {
    if (shape()[d] == 1) continue;
    if (strides()[d] != expected) return false;
    expected *= shape()[d];
  }
  return true;
}

void Tensor::check_dtype(DType expected, const char* what) const {
  STRATA_CHECK(defined(), what, ": the tensor is undefined");
  STRATA_CHECK(dtype() == expected, what, ": expected a ", dtype_name(expected), " tensor, got ", dtype_name(dtype()));
}

double Tensor::item_double() const {
  STRATA_CHECK(numel() == 1, "item: expected a tensor with one element, got shape ", shape().str());
  const Tensor host = host_readable(*this);
  return dispatch_storage(dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    return static_cast<double>(*static_cast<const T*>(host.raw_data()));
  });
}

template <class T>
std::vector<T> Tensor::to_vector() const {
  std::vector<T> out;
  out.reserve(numel());
  Shape idx;
  idx.resize(dim());
  const Tensor host = host_readable(*this);  // owns the bytes `base` points into
  const char* base = static_cast<const char*>(host.raw_data());
  dispatch_storage(dtype(), [&](auto tag) {
    using S = typename decltype(tag)::type;
    for (int64_t i = 0; i < numel(); ++i) {
      int64_t off = 0;
      for (int d = 0; d < dim(); ++d) off += idx[d] * strides()[d];
      out.push_back(static_cast<T>(reinterpret_cast<const S*>(base)[off]));
      for (int d = dim() - 1; d >= 0; --d) {
        if (++idx[d] < shape()[d]) break;
        idx[d] = 0;
      }
    }
  });
  return out;
}

template std::vector<float> Tensor::to_vector<float>() const;
template std::vector<double> Tensor::to_vector<double>() const;
template std::vector<int64_t> Tensor::to_vector<int64_t>() const;
template std::vector<int32_t> Tensor::to_vector<int32_t>() const;
template std::vector<uint8_t> Tensor::to_vector<uint8_t>() const;
template std::vector<bool> Tensor::to_vector<bool>() const;

}  // namespace strata
