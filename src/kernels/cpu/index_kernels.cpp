#include "kernels/cpu/index_kernels.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

#include "kernels/cpu/elementwise.hpp"
#include "kernels/cpu/loops.hpp"

namespace strata::kernels::cpu {
namespace {

// Moving an element needs only its size: fn(type_tag<W>) with W an unsigned word that wide.
template <class F>
void dispatch_word(DType t, F&& fn) {
  switch (itemsize(t)) {
    case 1: return fn(type_tag<uint8_t>{});
    case 2: return fn(type_tag<uint16_t>{});
    case 4: return fn(type_tag<uint32_t>{});
    case 8: return fn(type_tag<uint64_t>{});
  }
  throw Error(std::string("index kernels: unsupported element size of ") + dtype_name(t));
}

Tensor zero_tensor(const Shape& shape, DType dtype, Device device) {
  Tensor out = Tensor::empty(shape, dtype, device);
  if (out.numel() > 0) std::memset(out.raw_data(), 0, out.nbytes());  // all-zero bits are 0 in every dtype
  return out;
}

// Coordinates of row r of `shape` along `axis` (every coordinate but the axis one, which is 0).
void row_coords(int64_t r, const Shape& shape, int axis, Shape& coords) {
  for (int d = shape.size() - 1; d >= 0; --d) {
    if (d == axis) {
      coords[d] = 0;
      continue;
    }
    coords[d] = r % shape[d];
    r /= shape[d];
  }
}

int64_t dot(const Shape& coords, const Shape& strides) {
  int64_t s = 0;
  for (int d = 0; d < coords.size(); ++d) s += coords[d] * strides[d];
  return s;
}

int64_t grain_for(int64_t work_per_item) { return std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(1, work_per_item)); }

// Per axis, the element offset in a tensor with `strides` of each position the map visits.
std::vector<std::vector<int64_t>> offset_tables(const AxisMaps& maps, const Shape& sizes, const Shape& strides) {
  std::vector<std::vector<int64_t>> tables(sizes.size());
  for (int d = 0; d < sizes.size(); ++d) {
    if (maps[d].empty()) {
      tables[d].resize(sizes[d]);
      for (int64_t i = 0; i < sizes[d]; ++i) tables[d][i] = i * strides[d];
    } else {
      tables[d].reserve(maps[d].size());
      for (int64_t m : maps[d]) tables[d].push_back(m * strides[d]);
    }
  }
  return tables;
}

// Offset (into the tensor the tables describe) of row r of `shape`, all axes but the last.
int64_t row_offset(int64_t r, const Shape& shape, const std::vector<std::vector<int64_t>>& tables) {
  int64_t off = 0;
  for (int d = shape.size() - 2; d >= 0; --d) {
    off += tables[d][r % shape[d]];
    r /= shape[d];
  }
  return off;
}

}  // namespace

Tensor take_axes(const Tensor& x, const Shape& shape, const AxisMaps& maps) {
  if (x.dim() == 0) return contiguous_copy(x);
  Tensor out = Tensor::empty(shape, x.dtype(), x.device());
  if (out.numel() == 0) return out;
  const int nd = shape.size();
  // Trailing axes that are copied whole and lie contiguously in x make one block; the axis
  // before them (`loop`) is walked through its offset table, the axes before that are rows.
  int loop = nd - 1;
  int64_t block = 1;
  while (loop >= 0 && maps[loop].empty() && x.strides()[loop] == block) block *= shape[loop--];
  if (loop < 0) {  // a plain contiguous copy
    std::memcpy(out.raw_data(), x.raw_data(), out.nbytes());
    return out;
  }
  const auto tables = offset_tables(maps, x.shape(), x.strides());
  const auto& table = tables[loop];
  const int64_t n = shape[loop], items = out.numel() / block;
  Shape row_shape(shape.begin(), shape.begin() + loop + 1);  // row_offset ignores its last axis
  dispatch_word(x.dtype(), [&](auto tag) {
    using W = typename decltype(tag)::type;
    const W* src = static_cast<const W*>(x.raw_data());
    W* dst = static_cast<W*>(out.raw_data());
    parallel_for(items, grain_for(block), [&](int64_t b, int64_t e) {
      int64_t r = b / n, i = b % n;
      int64_t base = row_offset(r, row_shape, tables);
      for (int64_t item = b; item < e; ++item, ++i) {
        if (i == n) {
          i = 0;
          base = row_offset(++r, row_shape, tables);
        }
        const W* s = src + base + table[i];
        W* o = dst + item * block;
        if (block == 1) *o = *s;
        else if (block >= 16) std::memcpy(o, s, block * sizeof(W));
        else
          for (int64_t k = 0; k < block; ++k) o[k] = s[k];
      }
    });
  });
  return out;
}

void write_slab(Tensor& y, int axis, int64_t at, const Tensor& x) {
  if (x.numel() == 0) return;
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < axis; ++d) outer *= y.shape()[d];
  for (int d = axis + 1; d < y.dim(); ++d) inner *= y.shape()[d];
  const int64_t chunk = x.shape()[axis] * inner, row = y.shape()[axis] * inner;
  dispatch_word(y.dtype(), [&](auto tag) {
    using W = typename decltype(tag)::type;
    const W* src = static_cast<const W*>(x.raw_data());
    W* dst = static_cast<W*>(y.raw_data()) + at * inner;
    parallel_for(outer, grain_for(chunk), [&](int64_t b, int64_t e) {
      for (int64_t o = b; o < e; ++o) {
        if (chunk >= 16) std::memcpy(dst + o * row, src + o * chunk, chunk * sizeof(W));
        else
          for (int64_t k = 0; k < chunk; ++k) dst[o * row + k] = src[o * chunk + k];
      }
    });
  });
}

Tensor put_add_axes(const Tensor& g, const AxisMaps& maps, const Shape& shape) {
  Tensor out = zero_tensor(shape, g.dtype(), g.device());
  if (g.dim() == 0) {
    copy_into(out, g);
    return out;
  }
  if (g.numel() == 0) return out;
  Tensor gc = dense(g);
  const int nd = shape.size();
  const auto tables = offset_tables(maps, shape, out.strides());
  const int64_t n = g.shape()[nd - 1], rows = g.numel() / n;
  const auto& last = tables[nd - 1];
  dispatch_numeric(g.dtype(), "put_add_axes", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* src = gc.data<T>();
    T* dst = out.data<T>();
    auto block = [&](int64_t r0, int64_t r1, int64_t i0, int64_t i1) {
      for (int64_t r = r0; r < r1; ++r) {
        T* o = dst + row_offset(r, g.shape(), tables);
        const T* s = src + r * n;
        for (int64_t i = i0; i < i1; ++i) o[last[i]] += s[i];
      }
    };
    // Maps may send two positions to one place; split the work only along an axis whose map
    // is the identity, so that no two threads add into the same element.
    if (nd >= 2 && maps[0].empty()) {
      const int64_t per_first = rows / g.shape()[0];
      parallel_for(g.shape()[0], grain_for(per_first * n),
                   [&](int64_t b, int64_t e) { block(b * per_first, e * per_first, 0, n); });
    } else if (maps[nd - 1].empty()) {
      parallel_for(n, grain_for(rows), [&](int64_t b, int64_t e) { block(0, rows, b, e); });
    } else {
      block(0, rows, 0, n);
    }
  });
  return out;
}

Tensor gather_along(const Tensor& x, int axis, const Tensor& index) {
  Tensor out = Tensor::empty(index.shape(), x.dtype(), x.device());
  if (out.numel() == 0) return out;
  if (x.dim() == 0) {
    copy_into(out, x);
    return out;
  }
  const Shape& shape = index.shape();
  const int64_t n = shape[axis], rows = out.numel() / n;
  const int64_t xs = x.strides()[axis], is = index.strides()[axis], os = out.strides()[axis];
  const int64_t* idx = index.data<int64_t>();
  dispatch_word(x.dtype(), [&](auto tag) {
    using W = typename decltype(tag)::type;
    const W* src = static_cast<const W*>(x.raw_data());
    W* dst = static_cast<W*>(out.raw_data());
    parallel_for(rows, grain_for(n), [&](int64_t b, int64_t e) {
      Shape c;
      c.resize(shape.size());
      for (int64_t r = b; r < e; ++r) {
        row_coords(r, shape, axis, c);
        const W* s = src + dot(c, x.strides());
        const int64_t* ip = idx + dot(c, index.strides());
        W* o = dst + dot(c, out.strides());
        for (int64_t j = 0; j < n; ++j) o[j * os] = s[ip[j * is] * xs];
      }
    });
  });
  return out;
}

void scatter_add_along(Tensor& out, int axis, const Tensor& index, const Tensor& src) {
  if (index.numel() == 0) return;
  if (out.dim() == 0) {
    add_inplace(out, src);
    return;
  }
  const Shape& shape = index.shape();
  const int64_t n = shape[axis], rows = index.numel() / n;
  const int64_t os = out.strides()[axis], is = index.strides()[axis], ss = src.strides()[axis];
  const int64_t* idx = index.data<int64_t>();
  dispatch_numeric(out.dtype(), "scatter_add", [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* dst = out.data<T>();
    const T* from = src.data<T>();
    // Rows differ in some coordinate other than `axis`, so threads never share an element.
    parallel_for(rows, grain_for(n), [&](int64_t b, int64_t e) {
      Shape c;
      c.resize(shape.size());
      for (int64_t r = b; r < e; ++r) {
        row_coords(r, shape, axis, c);
        T* o = dst + dot(c, out.strides());
        const int64_t* ip = idx + dot(c, index.strides());
        const T* s = from + dot(c, src.strides());
        for (int64_t j = 0; j < n; ++j) o[ip[j * is] * os] += s[j * ss];
      }
    });
  });
}

std::pair<Tensor, Tensor> sort_along(const Tensor& x, int axis, int64_t k, bool descending) {
  Shape out_shape = x.shape();
  if (x.dim() > 0) out_shape[axis] = k;
  Tensor values = Tensor::empty(out_shape, x.dtype(), x.device());
  Tensor indices = Tensor::empty(out_shape, kInt64, x.device());
  if (values.numel() == 0) return {values, indices};
  if (x.dim() == 0) {
    copy_into(values, x);
    indices.data<int64_t>()[0] = 0;
    return {values, indices};
  }
  const Shape& shape = x.shape();
  const int64_t n = shape[axis], rows = x.numel() / n;
  const int64_t xs = x.strides()[axis], os = values.strides()[axis];
  dispatch_all(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* src = x.data<T>();
    T* vout = values.data<T>();
    int64_t* iout = indices.data<int64_t>();
    // NaN ranks above every number, in both directions.
    auto less = [](T a, T b) {
      if constexpr (std::is_floating_point_v<T>) {
        if (std::isnan(b)) return !std::isnan(a);
        if (std::isnan(a)) return false;
      }
      return a < b;
    };
    parallel_for(rows, grain_for(n * 8), [&](int64_t b, int64_t e) {
      std::vector<std::pair<T, int64_t>> row(n);  // (value, position): sorting pairs keeps them close
      Shape c;
      c.resize(shape.size());
      // For partial_sort, ties break on the position: the order a stable sort gives.
      auto first = [&](const std::pair<T, int64_t>& p, const std::pair<T, int64_t>& q) {
        if (descending ? less(q.first, p.first) : less(p.first, q.first)) return true;
        if (descending ? less(p.first, q.first) : less(q.first, p.first)) return false;
        return p.second < q.second;
      };
      for (int64_t r = b; r < e; ++r) {
        row_coords(r, shape, axis, c);
        const T* s = src + dot(c, x.strides());
        for (int64_t j = 0; j < n; ++j) row[j] = {s[j * xs], j};
        if (k == n)
          std::stable_sort(row.begin(), row.end(), [&](const auto& p, const auto& q) {
            return descending ? less(q.first, p.first) : less(p.first, q.first);
          });
        else std::partial_sort(row.begin(), row.begin() + k, row.end(), first);
        const int64_t base = dot(c, values.strides());
        for (int64_t j = 0; j < k; ++j) {
          vout[base + j * os] = row[j].first;
          iout[base + j * os] = row[j].second;
        }
      }
    });
  });
  return {values, indices};
}

std::vector<int64_t> true_positions(const Tensor& mask) {
  Tensor m = dense(mask);
  const bool* p = m.data<bool>();
  std::vector<int64_t> out;
  for (int64_t i = 0; i < m.numel(); ++i)
    if (p[i]) out.push_back(i);
  return out;
}

Tensor one_hot(const Tensor& ids, int64_t depth, DType dtype) {
  Shape shape = ids.shape();
  shape.push_back(depth);
  Tensor out = zero_tensor(shape, dtype, ids.device());
  const int64_t* id = ids.data<int64_t>();
  dispatch_all(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* p = out.data<T>();
    for (int64_t i = 0; i < ids.numel(); ++i) p[i * depth + id[i]] = T(1);
  });
  return out;
}

}  // namespace strata::kernels::cpu
