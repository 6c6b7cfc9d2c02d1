// Shape: up to 8 sizes (or strides) stored inline, so making a tensor allocates no vector.
#pragma once
#include <array>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "strata/core/error.hpp"

namespace strata {

inline constexpr int kMaxDims = 8;

class Shape {
 public:
  Shape() = default;
  Shape(std::initializer_list<int64_t> dims) { assign(dims.begin(), dims.end()); }
  Shape(const std::vector<int64_t>& dims) { assign(dims.begin(), dims.end()); }  // NOLINT: implicit by design
  template <class It>
  Shape(It first, It last) { assign(first, last); }

  int size() const { return n_; }
  bool empty() const { return n_ == 0; }
  int64_t operator[](int i) const { return d_[i]; }
  int64_t& operator[](int i) { return d_[i]; }
  int64_t back() const { return d_[n_ - 1]; }
  const int64_t* begin() const { return d_.data(); }
  const int64_t* end() const { return d_.data() + n_; }
  int64_t* begin() { return d_.data(); }
  int64_t* end() { return d_.data() + n_; }
  const int64_t* data() const { return d_.data(); }

  void push_back(int64_t v) {
    STRATA_CHECK(n_ < kMaxDims, "tensors have at most ", kMaxDims, " dimensions");
    d_[n_++] = v;
  }
  void insert(int pos, int64_t v);
  void erase(int pos);
  void resize(int n, int64_t fill = 0);
  int64_t numel() const;
  std::vector<int64_t> vec() const { return {begin(), end()}; }
  std::string str() const;  // "[2, 3]"

  bool operator==(const Shape& o) const;
  bool operator!=(const Shape& o) const { return !(*this == o); }

 private:
  template <class It>
  void assign(It first, It last) {
    n_ = 0;
    for (; first != last; ++first) push_back(static_cast<int64_t>(*first));
  }
  std::array<int64_t, kMaxDims> d_{};
  int n_ = 0;
};

// Row-major (C-contiguous) strides for `shape`, in elements.
Shape contiguous_strides(const Shape& shape);
// NumPy broadcasting of two shapes; `op` names the caller in the error.
Shape broadcast_shapes(const Shape& a, const Shape& b, const char* op);
// Wraps a possibly negative axis into [0, ndim); `op` names the caller in the error.
int normalize_axis(int64_t axis, int ndim, const char* op);

}  // namespace strata
