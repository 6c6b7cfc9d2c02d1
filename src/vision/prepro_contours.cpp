// TensorLayer's find_contours (scikit-image's marching squares, segments then assembly, in the
// same order so that the contours come out in the same order and direction) and pt2map.
#include <algorithm>
#include <cmath>
#include <deque>
#include <map>
#include <utility>

#include "strata/core/error.hpp"
#include "strata/vision/prepro.hpp"

namespace strata::vision {

namespace {

using ContourSegment = std::pair<ContourPoint, ContourPoint>;

// The directed segment of each square case (ul + 2 ur + 4 ll + 8 lr above the level), as
// indices into {top, bottom, left, right} crossings; 0 and 15 have none, 6 and 9 two (below).
constexpr int kTop = 0, kBottom = 1, kLeft = 2, kRight = 3;
constexpr std::array<std::array<int, 2>, 16> kSegment = {{{-1, -1},
                                                          {kTop, kLeft},
                                                          {kRight, kTop},
                                                          {kRight, kLeft},
                                                          {kLeft, kBottom},
                                                          {kTop, kBottom},
                                                          {-1, -1},
                                                          {kRight, kBottom},
                                                          {kBottom, kRight},
                                                          {-1, -1},
                                                          {kBottom, kTop},
                                                          {kBottom, kLeft},
                                                          {kLeft, kRight},
                                                          {kTop, kRight},
                                                          {kLeft, kTop},
                                                          {-1, -1}}};

double crossing_fraction(double from, double to, double level) { return to == from ? 0 : (level - from) / (to - from); }

// skimage's _get_contour_segments: one or two segments per 2 x 2 square that the level crosses,
// directed so that the lower values lie on the left; squares with a NaN are skipped.
std::vector<ContourSegment> contour_segments(const std::vector<double>& a, int64_t rows, int64_t cols, double level,
                                             bool vertex_connect_high) {
  std::vector<ContourSegment> segments;
  for (int64_t r0 = 0; r0 + 1 < rows; ++r0) {
    for (int64_t c0 = 0; c0 + 1 < cols; ++c0) {
      const int64_t r1 = r0 + 1, c1 = c0 + 1;
      const double ul = a[size_t(r0 * cols + c0)], ur = a[size_t(r0 * cols + c1)];
      const double ll = a[size_t(r1 * cols + c0)], lr = a[size_t(r1 * cols + c1)];
      if (std::isnan(ul) || std::isnan(ur) || std::isnan(ll) || std::isnan(lr)) continue;
      const int square = (ul > level) + 2 * (ur > level) + 4 * (ll > level) + 8 * (lr > level);
      if (square == 0 || square == 15) continue;
      const double fr0 = double(r0), fc0 = double(c0);
      const ContourPoint top{fr0, fc0 + crossing_fraction(ul, ur, level)};
      const ContourPoint bottom{double(r1), fc0 + crossing_fraction(ll, lr, level)};
      const ContourPoint left{fr0 + crossing_fraction(ul, ll, level), fc0};
      const ContourPoint right{fr0 + crossing_fraction(ur, lr, level), double(c1)};
      const std::array<ContourPoint, 4> at{top, bottom, left, right};
      auto add = [&](int from, int to) { segments.push_back({at[size_t(from)], at[size_t(to)]}); };
      if (square == 6) {  // saddles: which diagonal pair connects depends on the connectivity
        if (vertex_connect_high)
          add(kLeft, kTop), add(kRight, kBottom);
        else
          add(kRight, kTop), add(kLeft, kBottom);
      } else if (square == 9) {
        if (vertex_connect_high)
          add(kTop, kRight), add(kBottom, kLeft);
        else
          add(kTop, kLeft), add(kBottom, kRight);
      } else {
        add(kSegment[size_t(square)][0], kSegment[size_t(square)][1]);
      }
    }
  }
  return segments;
}

// skimage's _assemble_contours: segments joined end to start by exact point equality; when two
// contours meet, the one created first absorbs the other, so the result keeps creation order.
std::vector<std::vector<ContourPoint>> assemble_contours(const std::vector<ContourSegment>& segments) {
  std::map<int64_t, std::deque<ContourPoint>> contours;
  std::map<ContourPoint, int64_t> starts, ends;  // an open end point -> its contour's number
  auto take = [](std::map<ContourPoint, int64_t>& m, const ContourPoint& p) {
    const auto it = m.find(p);
    if (it == m.end()) return int64_t(-1);
    const int64_t n = it->second;
    m.erase(it);
    return n;
  };
  int64_t next = 0;
  for (const auto& [from, to] : segments) {
    if (from == to) continue;  // a square corner exactly at the level: the neighbours pick it up
    const int64_t tail = take(starts, to), head = take(ends, from);
    if (tail >= 0 && head >= 0) {
      if (tail == head) {
        contours[head].push_back(to);  // closes the contour
      } else if (tail > head) {
        auto& h = contours[head];
        const auto& t = contours[tail];
        h.insert(h.end(), t.begin(), t.end());
        contours.erase(tail);
        starts[h.front()] = head;
        ends[h.back()] = head;
      } else {
        auto& t = contours[tail];
        const auto& h = contours[head];
        t.insert(t.begin(), h.begin(), h.end());
        starts.erase(h.front());
        contours.erase(head);
        starts[t.front()] = tail;
        ends[t.back()] = tail;
      }
    } else if (tail < 0 && head < 0) {
      contours[next] = {from, to};
      starts[from] = next;
      ends[to] = next;
      ++next;
    } else if (head < 0) {
      contours[tail].push_front(from);
      starts[from] = tail;
    } else {
      contours[head].push_back(to);
      ends[to] = head;
    }
  }
  std::vector<std::vector<ContourPoint>> out;
  for (auto& [n, c] : contours) out.emplace_back(c.begin(), c.end());
  return out;
}

}  // namespace

std::vector<std::vector<ContourPoint>> find_contours(const Tensor& image, double level, ContourSide fully_connected,
                                                     ContourSide positive_orientation) {
  STRATA_CHECK(image.defined() && image.dim() == 2 && image.size(0) >= 2 && image.size(1) >= 2,
               "find_contours: expected a 2-D image of at least 2 x 2, got ",
               image.defined() ? image.shape().str() : std::string("an undefined tensor"));
  auto contours = assemble_contours(contour_segments(image.to_vector<double>(), image.size(0), image.size(1), level,
                                                     fully_connected == ContourSide::high));
  if (positive_orientation == ContourSide::high)
    for (auto& c : contours) std::reverse(c.begin(), c.end());
  return contours;
}

Tensor pt2map(const std::vector<std::vector<ContourPoint>>& lists, int64_t rows, int64_t cols, double value) {
  constexpr int64_t kMaxPixels = int64_t(1) << 31;  // a map larger than 2^31 pixels is a mistake, not a picture
  STRATA_CHECK(rows >= 0 && cols >= 0 && (cols == 0 || rows <= kMaxPixels / cols),
               "pt2map: expected a map size with rows, cols >= 0 and at most 2^31 pixels, got ", rows, " x ", cols);
  std::vector<double> map(size_t(rows * cols), 0.0);
  for (size_t l = 0; l < lists.size(); ++l) {
    for (size_t k = 0; k < lists[l].size(); ++k) {
      // np.round rounds half to even, as nearbyint does in the default rounding mode.
      const double r = std::nearbyint(lists[l][k][0]), c = std::nearbyint(lists[l][k][1]);
      STRATA_CHECK(r >= 0 && r < double(rows) && c >= 0 && c < double(cols), "pt2map: point ", k, " of list ", l, " (",
                   lists[l][k][0], ", ", lists[l][k][1], ") is outside the ", rows, " x ", cols, " map");
      map[size_t(int64_t(r) * cols + int64_t(c))] = value;
    }
  }
  return from_vector(map, {rows, cols});
}

}  // namespace strata::vision
