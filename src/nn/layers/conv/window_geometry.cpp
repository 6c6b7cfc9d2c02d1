#include "window_geometry.hpp"

#include <algorithm>

namespace strata::nn::detail {

static int64_t per_axis(const SpatialSizes& v, int axis, const char* op, const char* what) {
  STRATA_CHECK(v.size() == 1 || v.size() == 2, op, ": ", what, " must have 1 or 2 values, got ", v.size());
  const int64_t value = v.size() == 1 ? v[0] : v[axis];
  STRATA_CHECK(value > 0, op, ": ", what, " must be positive, got ", Shape(v).str());
  return value;
}

AxisWindow axis_window(int64_t in, int axis, const SpatialSizes& kernel, const ConvOptions& o, const char* op) {
  STRATA_CHECK(o.groups == 1, op, ": groups must be 1, got ", o.groups);
  AxisWindow w{per_axis(kernel, axis, op, "kernel"),
               per_axis(o.stride, axis, op, "stride"),
               per_axis(o.dilation, axis, op, "dilation"),
               0,
               0,
               0};
  const int64_t span = (w.kernel - 1) * w.dilation + 1;
  if (o.padding.kind == Padding::Kind::same) {
    w.out = (in + w.stride - 1) / w.stride;
    const int64_t total = std::max<int64_t>((w.out - 1) * w.stride + span - in, 0);
    w.before = total / 2;
    w.after = total - w.before;
  } else {
    if (o.padding.kind == Padding::Kind::explicit_) {
      const SpatialSizes &b = o.padding.before, &a = o.padding.after;
      STRATA_CHECK((b.size() == 1 || b.size() == 2) && (a.size() == 1 || a.size() == 2), op,
                   ": explicit padding needs 1 or 2 values before and after");
      w.before = b.size() == 1 ? b[0] : b[axis];
      w.after = a.size() == 1 ? a[0] : a[axis];
      STRATA_CHECK(w.before >= 0 && w.after >= 0, op, ": padding must not be negative");
    }
    STRATA_CHECK(in + w.before + w.after >= span, op, ": a window of ", span, " does not fit an axis of ", in,
                 " (padded by ", w.before + w.after, ")");
    w.out = (in + w.before + w.after - span) / w.stride + 1;
  }
  return w;
}

}  // namespace strata::nn::detail
