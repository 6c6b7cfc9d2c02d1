#include "strata/core/device_copy.hpp"

#include <cstring>
#include <vector>

#include "strata/core/allocator.hpp"

namespace strata {
namespace {

bool host_accessible(const Storage& s) { return s.allocator() && s.allocator()->host_accessible(); }

}  // namespace

Tensor copy_contiguous_to(const Tensor& x, Device device) {
  STRATA_CHECK(x.is_contiguous(), "copy_contiguous_to: expected a contiguous tensor, got strides ",
               x.strides().str(), " for shape ", x.shape().str());
  Tensor out = Tensor::empty(x.shape(), x.dtype(), device);
  if (device.type == DeviceType::Meta) return out;
  const void* src = x.raw_data();  // NoDataError for a meta source
  void* dst = out.raw_data();
  const size_t n = x.nbytes();
  if (n == 0) return out;
  const Storage& from = *x.impl()->storage;
  const Storage& to = *out.impl()->storage;
  if (host_accessible(from)) {
    to.allocator()->copy_from_host(dst, src, n, device.index);
  } else if (host_accessible(to)) {
    from.allocator()->copy_to_host(dst, src, n, x.device().index);
  } else {
    std::vector<char> staging(n);
    from.allocator()->copy_to_host(staging.data(), src, n, x.device().index);
    to.allocator()->copy_from_host(dst, staging.data(), n, device.index);
  }
  return out;
}

std::pair<int64_t, int64_t> reached_elements(const Tensor& x) {
  int64_t first = x.offset(), last = x.offset();
  for (int d = 0; d < x.dim(); ++d) {
    const int64_t reach = (x.shape()[d] - 1) * x.strides()[d];
    (reach < 0 ? first : last) += reach;
  }
  return {first, last};
}

// Only the elements the view can reach are copied: item() of one weight of a large matrix on a
// GPU copies one element, not the matrix.
Tensor host_readable(const Tensor& x) {
  const Storage& s = *x.impl()->storage;
  if (x.is_meta() || host_accessible(s)) return x;
  const auto [first, last] = reached_elements(x);
  const size_t item = itemsize(x.dtype());
  const size_t nbytes = x.numel() == 0 ? 0 : static_cast<size_t>(last - first + 1) * item;
  auto host = std::make_shared<Storage>(nbytes, kCPU);
  if (nbytes > 0)
    s.allocator()->copy_to_host(host->data(), static_cast<const char*>(s.data()) + first * item, nbytes,
                                x.device().index);
  return Tensor(std::make_shared<TensorImpl>(std::move(host), x.shape(), x.strides(), x.offset() - first, x.dtype()));
}

}  // namespace strata
