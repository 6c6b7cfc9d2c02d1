// The indexing families built on per-axis index maps (dispatch/index.hpp), with slabs, masks and
// one-hot. The ops check index values on the host before these run, so no kernel validates an
// index. The maps travel to the device as one int64 table tensor; outputs are fresh contiguous
// tensors.

#include "kernels/cuda/elementwise.hpp"
#include "kernels/cuda/index.hpp"
#include "kernels/cuda/indexer.hpp"
#include "strata/core/factory.hpp"

namespace strata::kernels::cuda {
inline namespace STRATA_CUDA_BUILD {
namespace detail {
namespace {  // helpers of this file only

// Where each axis's table starts in the table tensor (`first`), with the axis sizes of the
// positions a kernel walks.
struct AxisTables {
  int dims = 0;
  int64_t sizes[kMaxDims] = {};
  int64_t first[kMaxDims] = {};
};

}  // namespace

template <class T>
void take_typed(Tensor& out, const Tensor& x, const Tensor& table, const AxisTables& at) {
  T* o = out.data<T>();
  const T* in = x.data<T>();
  const int64_t* tab = table.data<int64_t>();
  for_each_index(out.numel(), "take_axes", [=] STRATA_HD(int64_t i) {
    int64_t off = 0;
    for (int64_t d = at.dims - 1, r = i; d >= 0; --d) {
      const int64_t q = r / at.sizes[d];
      off += tab[at.first[d] + r - q * at.sizes[d]];
      r = q;
    }
    o[i] = in[off];
  });
}

template <class T>
void put_add_typed(Tensor& out, const Tensor& g, const Tensor& table, const AxisTables& at) {
  T* o = out.data<T>();
  const T* in = g.data<T>();
  const int64_t* tab = table.data<int64_t>();
  for_each_index(out.numel(), "put_add_axes", [=] STRATA_HD(int64_t i) {
    // Per axis, the range of the table's list of g's offsets that land on this coordinate.
    int64_t begin[kMaxDims], end[kMaxDims], pos[kMaxDims];
    bool done = false;
    for (int64_t d = at.dims - 1, r = i; d >= 0; --d) {
      const int64_t q = r / at.sizes[d], c = r - q * at.sizes[d];
      begin[d] = pos[d] = tab[at.first[d] + c];
      end[d] = tab[at.first[d] + c + 1];
      done = done || begin[d] == end[d];
      r = q;
    }
    // Every combination of the lists, last axis fastest: row-major order of g, the order in which
    // the CPU adds them up, so both give the same bits.
    T sum = T(0);
    while (!done) {
      int64_t off = 0;
      for (int d = 0; d < at.dims; ++d) off += tab[pos[d]];
      sum += in[off];
      int d = at.dims - 1;
      for (; d >= 0 && ++pos[d] == end[d]; --d) pos[d] = begin[d];
      done = d < 0;
    }
    o[i] = sum;
  });
}

template <class T>
void write_slab_typed(Tensor& y, int64_t at, int64_t inner, const Tensor& x, int axis) {
  T* dst = y.data<T>();
  const T* src = x.data<T>();
  const int64_t chunk = x.shape()[axis] * inner, row = y.shape()[axis] * inner;
  for_each_index(x.numel(), "write_slab", [=] STRATA_HD(int64_t i) {
    const int64_t o = i / chunk;
    dst[o * row + at * inner + i - o * chunk] = src[i];
  });
}

template <class T>
void one_hot_typed(Tensor& out, const Tensor& ids, int64_t depth) {
  T* o = out.data<T>();
  const int64_t* id = ids.data<int64_t>();
  for_each_index(out.numel(), "one_hot", [=] STRATA_HD(int64_t i) {
    const int64_t q = i / depth;
    o[i] = static_cast<T>(id[q] == i - q * depth);
  });
}

}  // namespace detail

Tensor take_axes(const Tensor& x, const Shape& shape, const dispatch::AxisMaps& maps) {
  if (x.dim() == 0) return contiguous_copy(x);
  Tensor out = Tensor::empty(shape, x.dtype(), x.device());
  if (out.numel() == 0) return out;
  // Per axis, x's element offset of each output coordinate.
  detail::AxisTables at;
  at.dims = shape.size();
  std::vector<int64_t> table;
  for (int d = 0; d < shape.size(); ++d) {
    at.sizes[d] = shape[d];
    at.first[d] = table.size();
    for (int64_t i = 0; i < shape[d]; ++i) table.push_back((maps[d].empty() ? i : maps[d][i]) * x.strides()[d]);
  }
  const Tensor t = from_vector(table, {static_cast<int64_t>(table.size())}, x.device());
  dispatch_all(x.dtype(), [&](auto tag) { detail::take_typed<typename decltype(tag)::type>(out, x, t, at); });
  return out;
}

void write_slab(Tensor& y, int axis, int64_t at, const Tensor& x) {
  int64_t inner = 1;
  for (int d = axis + 1; d < y.dim(); ++d) inner *= y.shape()[d];
  dispatch_all(y.dtype(), [&](auto tag) {
    detail::write_slab_typed<typename decltype(tag)::type>(y, at, inner, x, axis);
  });
}

Tensor put_add_axes(const Tensor& g, const dispatch::AxisMaps& maps, const Shape& shape) {
  Tensor out = Tensor::empty(shape, g.dtype(), g.device());
  if (g.dim() == 0) {
    copy_into(out, g);
    return out;
  }
  if (g.numel() == 0) {
    fill(out, 0);
    return out;
  }
  // Per axis, the inverse of its map: for each output coordinate c, table[first + c] and
  // table[first + c + 1] bound the list (further on in the table) of g's offsets along the axis
  // that the map sends to c, in increasing order.
  detail::AxisTables at;
  at.dims = shape.size();
  std::vector<int64_t> table;
  for (int d = 0; d < shape.size(); ++d) {
    const int64_t n = g.shape()[d];
    auto target = [&](int64_t i) { return maps[d].empty() ? i : maps[d][i]; };
    std::vector<int64_t> start(shape[d] + 1, 0);
    for (int64_t i = 0; i < n; ++i) ++start[target(i) + 1];
    for (int64_t c = 0; c < shape[d]; ++c) start[c + 1] += start[c];
    at.sizes[d] = shape[d];
    at.first[d] = table.size();
    const int64_t lists = table.size() + shape[d] + 1;
    for (int64_t s : start) table.push_back(lists + s);
    table.resize(lists + n);
    for (int64_t i = 0; i < n; ++i) table[lists + start[target(i)]++] = i * g.strides()[d];
  }
  const Tensor t = from_vector(table, {static_cast<int64_t>(table.size())}, g.device());
  dispatch_numeric(g.dtype(), "put_add_axes",
                   [&](auto tag) { detail::put_add_typed<typename decltype(tag)::type>(out, g, t, at); });
  return out;
}

// On the host: the count sizes the result.
std::vector<int64_t> true_positions(const Tensor& mask) {
  const std::vector<uint8_t> m = mask.to_vector<uint8_t>();
  std::vector<int64_t> out;
  for (size_t i = 0; i < m.size(); ++i)
    if (m[i]) out.push_back(static_cast<int64_t>(i));
  return out;
}

Tensor one_hot(const Tensor& ids, int64_t depth, DType dtype) {
  Shape shape = ids.shape();
  shape.push_back(depth);
  Tensor out = Tensor::empty(shape, dtype, ids.device());
  dispatch_all(dtype, [&](auto tag) { detail::one_hot_typed<typename decltype(tag)::type>(out, ids, depth); });
  return out;
}

}  // namespace STRATA_CUDA_BUILD
}  // namespace strata::kernels::cuda
