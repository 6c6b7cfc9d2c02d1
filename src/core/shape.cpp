#include "strata/core/shape.hpp"

#include <algorithm>

namespace strata {

void Shape::insert(int pos, int64_t v) {
  STRATA_CHECK(n_ < kMaxDims, "tensors have at most ", kMaxDims, " dimensions");
  for (int i = n_; i > pos; --i) d_[i] = d_[i - 1];
  d_[pos] = v;
  ++n_;
}

void Shape::erase(int pos) {
  for (int i = pos; i + 1 < n_; ++i) d_[i] = d_[i + 1];
  --n_;
}

void Shape::resize(int n, int64_t fill) {
  STRATA_CHECK(n <= kMaxDims, "tensors have at most ", kMaxDims, " dimensions, asked for ", n);
  for (int i = n_; i < n; ++i) d_[i] = fill;
  n_ = n;
}

int64_t Shape::numel() const {
  int64_t n = 1;
  for (int i = 0; i < n_; ++i) n *= d_[i];
  return n;
}

std::string Shape::str() const {
  std::string s = "[";
  for (int i = 0; i < n_; ++i) {
    if (i) s += ", ";
    s += std::to_string(d_[i]);
  }
  return s + "]";
}

bool Shape::operator==(const Shape& o) const {
  return n_ == o.n_ && std::equal(begin(), end(), o.begin());
}

Shape contiguous_strides(const Shape& shape) {
  Shape s;
  s.resize(shape.size());
  int64_t acc = 1;
  for (int i = shape.size() - 1; i >= 0; --i) {
    s[i] = acc;
    acc *= std::max<int64_t>(shape[i], 1);
  }
  return s;
}

Shape broadcast_shapes(const Shape& a, const Shape& b, const char* op) {
  int n = std::max(a.size(), b.size());
  Shape out;
  out.resize(n);
  for (int i = 0; i < n; ++i) {
    int ia = a.size() - n + i, ib = b.size() - n + i;
    int64_t da = ia >= 0 ? a[ia] : 1, db = ib >= 0 ? b[ib] : 1;
    STRATA_CHECK(da == db || da == 1 || db == 1, op, ": shapes ", a.str(), " and ", b.str(),
                 " cannot be broadcast together (dimension ", i, ": ", da, " vs ", db, ")");
    out[i] = da == 1 ? db : da;
  }
  return out;
}

int normalize_axis(int64_t axis, int ndim, const char* op) {
  int64_t a = axis < 0 ? axis + ndim : axis;
  STRATA_CHECK(a >= 0 && a < std::max(ndim, 1), op, ": axis ", axis, " is out of range for a tensor of ",
               ndim, " dimensions");
  return static_cast<int>(a);
}

}  // namespace strata
