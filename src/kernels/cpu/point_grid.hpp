// A uniform grid of cubic cells over one 3-D cloud, for the CPU's k-nearest-neighbour and ball
// searches on large clouds (pointcloud_kernels.cpp): the points sorted by cell (a counting sort,
// so each cell's points stay in index order), O(N) memory and at most about N cells whatever the
// coordinates. Both searches give exactly the brute force's indices: distances are computed by
// the same expression in the cloud's precision, and the pruning bounds carry margins larger than
// any rounding, so no point that could win (or tie to a lower index) is skipped.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace strata::kernels::cpu {

// The squared distance both search paths compute, so that their rounding is the same.
template <class T>
inline T squared_distance3(T x, T y, T z, T qx, T qy, T qz) {
  return (x - qx) * (x - qx) + (y - qy) * (y - qy) + (z - qz) * (z - qz);
}

template <class T>
class PointGrid {
 public:
  // Bins points [n, 3]: cells of side at least min_side, about per_cell points to a cell on
  // average (at most n / per_cell cells). Returns false, building nothing, where the extent of
  // the coordinates does not fit a double (beyond about +-1e307) or is too small to divide.
  bool build(const T* points, int64_t n, double per_cell, double min_side) {
    double hi[3];
    for (int a = 0; a < 3; ++a) lo_[a] = hi[a] = static_cast<double>(points[a]);
    for (int64_t i = 1; i < n; ++i)
      for (int a = 0; a < 3; ++a) {
        const double v = static_cast<double>(points[i * 3 + a]);
        lo_[a] = std::min(lo_[a], v), hi[a] = std::max(hi[a], v);
      }
    double widest = 0;
    for (int a = 0; a < 3; ++a) extent_[a] = hi[a] - lo_[a], widest = std::max(widest, extent_[a]);
    if (!std::isfinite(widest)) return false;
    const double most_cells = std::max(1.0, std::floor(static_cast<double>(n) / per_cell));
    if (widest == 0) {
      side_ = 1;
    } else if (min_side > 0 && cell_count(min_side) <= most_cells) {
      side_ = min_side;
    } else {  // the smallest side giving at most most_cells cells (the count falls as the side grows)
      double small = std::max(min_side, widest / (2 * most_cells)), large = 2 * widest;
      for (int step = 0; step < 100 && small < large; ++step) {
        const double mid = small + (large - small) / 2;
        if (mid <= small || mid >= large) break;
        (cell_count(mid) <= most_cells ? large : small) = mid;
      }
      side_ = large;
    }
    if (!(side_ >= 1e-290) || !(cell_count(side_) <= most_cells)) return false;
    int64_t cells = 1;
    for (int a = 0; a < 3; ++a) dims_[a] = static_cast<int64_t>(std::floor(extent_[a] / side_)) + 1, cells *= dims_[a];
    // Counting sort by cell: point i goes to cell_[i]; start_[c] is where cell c's points begin.
    std::vector<int64_t> cell_of_point(static_cast<size_t>(n));
    start_.assign(static_cast<size_t>(cells + 1), 0);
    for (int64_t i = 0; i < n; ++i) {
      int64_t at[3];
      for (int a = 0; a < 3; ++a) at[a] = cell_along(a, static_cast<double>(points[i * 3 + a]));
      cell_of_point[i] = (at[2] * dims_[1] + at[1]) * dims_[0] + at[0];
      ++start_[cell_of_point[i] + 1];
    }
    for (int64_t c = 0; c < cells; ++c) start_[c + 1] += start_[c];
    std::vector<int64_t> next(start_.begin(), start_.end() - 1);
    index_.resize(static_cast<size_t>(n));
    xyz_.resize(static_cast<size_t>(3 * n));
    n_ = n;
    for (int64_t i = 0; i < n; ++i) {  // in index order, so each cell's points stay sorted by index
      const int64_t slot = next[cell_of_point[i]]++;
      index_[slot] = i;
      for (int a = 0; a < 3; ++a) xyz_[a * n + slot] = points[i * 3 + a];
    }
    return true;
  }

  int64_t cells() const { return static_cast<int64_t>(start_.size()) - 1; }

  // The k nearest points to q into out, nearest first, ties to the lower index; best is scratch.
  // Visits the query's cell, then rings of cells outward, until the nearest a point beyond the
  // rings visited could be is farther than the k-th found.
  void knn(const T* q, int64_t k, int64_t* out, std::vector<T>& best) const {
    best.assign(static_cast<size_t>(k), std::numeric_limits<T>::infinity());
    std::fill(out, out + k, int64_t{0});
    int64_t centre[3];
    for (int a = 0; a < 3; ++a) centre[a] = cell_along(a, static_cast<double>(q[a]));
    const int64_t widest_ring = std::max({centre[0], dims_[0] - 1 - centre[0], centre[1], dims_[1] - 1 - centre[1],
                                          centre[2], dims_[2] - 1 - centre[2]});
    for (int64_t r = 0; r <= widest_ring; ++r) {
      for_ring(centre, r, [&](int64_t begin, int64_t end) {
        scan(q, begin, end, [&](T d, int64_t s) {
          const int64_t i = index_[s];  // cells come in any order: compare (distance, index)
          if (!(d < best[k - 1] || (d == best[k - 1] && i < out[k - 1]))) return;
          int64_t at = k - 1;
          for (; at > 0 && (d < best[at - 1] || (d == best[at - 1] && i < out[at - 1])); --at)
            best[at] = best[at - 1], out[at] = out[at - 1];
          best[at] = d, out[at] = i;
        });
      });
      if (nearest_beyond(q, centre, r) > static_cast<double>(best[k - 1])) break;
    }
  }

  // The `samples` lowest indices of the points with squared distance < r2 (radius * radius in T,
  // as the brute force compares) into out, padded with the first; out is left as it is (zeros)
  // when none is within. heap is scratch.
  void ball_query(const T* q, double radius, T r2, int64_t samples, int64_t* out, std::vector<int64_t>& heap) const {
    int64_t first[3], last[3];
    for (int a = 0; a < 3; ++a) {
      const double qa = static_cast<double>(q[a]);
      // A point counted inside is within radius * (1 + 1e-6) on each axis whatever the rounding.
      const double reach = radius * (1 + 1e-5) + margin(a, qa) +
                           std::sqrt(64 * static_cast<double>(std::numeric_limits<T>::denorm_min()));
      first[a] = cell_along(a, qa - reach), last[a] = cell_along(a, qa + reach);
    }
    heap.clear();  // a max-heap of the lowest indices found
    for (int64_t z = first[2]; z <= last[2]; ++z)
      for (int64_t y = first[1]; y <= last[1]; ++y) {
        const int64_t row = (z * dims_[1] + y) * dims_[0];
        scan(q, start_[row + first[0]], start_[row + last[0] + 1], [&](T d, int64_t s) {
          if (!(d < r2)) return;
          const int64_t i = index_[s];
          if (static_cast<int64_t>(heap.size()) < samples) {
            heap.push_back(i), std::push_heap(heap.begin(), heap.end());
          } else if (i < heap.front()) {
            std::pop_heap(heap.begin(), heap.end()), heap.back() = i, std::push_heap(heap.begin(), heap.end());
          }
        });
      }
    if (heap.empty()) return;
    std::sort_heap(heap.begin(), heap.end());
    std::fill(out, out + samples, heap[0]);
    std::copy(heap.begin(), heap.end(), out);
  }

 private:
  // Calls each(distance, slot) for the sorted points [begin, end), their squared distances to q
  // computed a vectorised block at a time.
  template <class Each>
  void scan(const T* q, int64_t begin, int64_t end, Each&& each) const {
    constexpr int64_t kBlock = 256;
    T d[kBlock];
    for (int64_t from = begin; from < end; from += kBlock) {
      const int64_t m = std::min(kBlock, end - from);
      const T *x = xyz_.data() + from, *y = x + n_, *z = y + n_;
#pragma omp simd
      for (int64_t i = 0; i < m; ++i) d[i] = squared_distance3(x[i], y[i], z[i], q[0], q[1], q[2]);
      for (int64_t i = 0; i < m; ++i) each(d[i], from + i);
    }
  }

  // How many cells a side gives, as a double (no overflow for any side).
  double cell_count(double side) const {
    double count = 1;
    for (int a = 0; a < 3; ++a) count *= std::floor(extent_[a] / side) + 1;
    return count;
  }
  // The cell along axis a holding coordinate v, clamped to the grid (queries may lie outside).
  int64_t cell_along(int a, double v) const {
    const double t = std::floor((v - lo_[a]) / side_);
    if (!(t >= 0)) return 0;
    return t >= static_cast<double>(dims_[a]) ? dims_[a] - 1 : static_cast<int64_t>(t);
  }
  // More than the rounding of a cell's faces and of the binning, along axis a near coordinate v.
  double margin(int a, double v) const {
    return 1e-9 * (std::fabs(lo_[a]) + extent_[a] + side_ + std::fabs(v)) + 8 * std::numeric_limits<double>::denorm_min();
  }

  // Calls visit(begin, end) for the sorted ranges of the cells at Chebyshev distance r from centre
  // (within the grid): a whole row along x where y or z is on the ring, else its two ends.
  template <class Visit>
  void for_ring(const int64_t* centre, int64_t r, Visit&& visit) const {
    const int64_t x0 = std::max<int64_t>(centre[0] - r, 0), x1 = std::min(centre[0] + r, dims_[0] - 1);
    for (int64_t z = std::max<int64_t>(centre[2] - r, 0); z <= std::min(centre[2] + r, dims_[2] - 1); ++z)
      for (int64_t y = std::max<int64_t>(centre[1] - r, 0); y <= std::min(centre[1] + r, dims_[1] - 1); ++y) {
        const int64_t row = (z * dims_[1] + y) * dims_[0];
        if (std::llabs(z - centre[2]) == r || std::llabs(y - centre[1]) == r) {
          visit(start_[row + x0], start_[row + x1 + 1]);
          continue;
        }
        if (centre[0] - r >= 0) visit(start_[row + centre[0] - r], start_[row + centre[0] - r + 1]);
        if (r > 0 && centre[0] + r < dims_[0]) visit(start_[row + centre[0] + r], start_[row + centre[0] + r + 1]);
      }
  }

  // A lower bound, below any rounding of squared_distance3 in T, of the squared distance from q
  // to a point outside the cells within Chebyshev distance r of centre; infinity when none is.
  double nearest_beyond(const T* q, const int64_t* centre, int64_t r) const {
    double gap = std::numeric_limits<double>::infinity();
    for (int a = 0; a < 3; ++a) {
      const double qa = static_cast<double>(q[a]), slack = margin(a, qa);
      if (centre[a] - r > 0) gap = std::min(gap, qa - (lo_[a] + static_cast<double>(centre[a] - r) * side_) - slack);
      if (centre[a] + r + 1 < dims_[a])
        gap = std::min(gap, lo_[a] + static_cast<double>(centre[a] + r + 1) * side_ - qa - slack);
    }
    if (gap == std::numeric_limits<double>::infinity()) return gap;
    gap = std::max(gap, 0.0);
    // squared_distance3 rounds by a few units in T's last place, relatively, or by a few of its
    // smallest subnormals near zero.
    return gap * gap * (1 - 1e-5) - 64 * static_cast<double>(std::numeric_limits<T>::denorm_min());
  }

  double lo_[3] = {0, 0, 0}, extent_[3] = {0, 0, 0}, side_ = 1;
  int64_t dims_[3] = {1, 1, 1}, n_ = 0;
  std::vector<int64_t> start_;  // cells + 1 offsets into the sorted points
  std::vector<int64_t> index_;  // the points' indices, sorted by cell (by index within a cell)
  std::vector<T> xyz_;          // their coordinates in that order, axis by axis
};

}  // namespace strata::kernels::cpu
