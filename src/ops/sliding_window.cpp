#include "ops/sliding_window.hpp"

#include <algorithm>

#include "strata/core/error.hpp"

namespace strata::ops {
namespace {

std::string list_str(const SpatialSizes& v) { return Shape(v).str(); }

// Explicit before/after pads, each checked non-negative.
void read_explicit(Window& w, const Padding& p, const char* op) {
  w.pad_before = window_axes(p.before, w.nsp, 0, 0, op, "padding before");
  w.pad_after = window_axes(p.after, w.nsp, 0, 0, op, "padding after");
}

}  // namespace

Window::Axes window_axes(const SpatialSizes& values, int nsp, int64_t fill, int64_t min, const char* op,
                         const char* what) {
  STRATA_CHECK(values.size() == 1 || static_cast<int>(values.size()) == nsp, op, ": ", what,
               " takes 1 or ", nsp, " values (one per spatial axis), got ", values.size(), " ",
               list_str(values));
  Window::Axes a{fill, fill, fill};
  for (int i = 0; i < nsp; ++i) {
    const int64_t v = values.size() == 1 ? values[0] : values[i];
    STRATA_CHECK(v >= min, op, ": ", what, " must be >= ", min, ", got ", list_str(values));
    a[3 - nsp + i] = v;
  }
  return a;
}

void read_input(Window& w, const Tensor& x, int nsp, const char* op) {
  static const char* layouts[] = {"", "[N, W, C]", "[N, H, W, C]", "[N, D, H, W, C]"};
  STRATA_CHECK(x.defined(), op, ": input is an undefined tensor");
  STRATA_CHECK(x.dim() == nsp + 2, op, ": expected input of rank ", nsp + 2, " ", layouts[nsp], ", got shape ",
               x.shape().str());
  STRATA_CHECK(is_floating(x.dtype()), op, ": expected a float32 or float64 input, got ", dtype_name(x.dtype()));
  w.nsp = nsp;
  w.batch = x.size(0);
  for (int i = 0; i < nsp; ++i) w.in[3 - nsp + i] = x.size(1 + i);
}

void resolve_padding(Window& w, const Padding& padding, const char* op, const std::string& shapes) {
  if (padding.kind == Padding::Kind::explicit_) read_explicit(w, padding, op);
  for (int a = 3 - w.nsp; a < 3; ++a) {
    const int64_t k = w.dilated_kernel(a), s = w.stride[a];
    if (padding.kind == Padding::Kind::same) {
      w.out[a] = (w.in[a] + s - 1) / s;
      const int64_t total = std::max<int64_t>((w.out[a] - 1) * s + k - w.in[a], 0);
      w.pad_before[a] = total / 2;
      w.pad_after[a] = total - total / 2;
    } else {
      if (padding.kind == Padding::Kind::valid) w.pad_before[a] = w.pad_after[a] = 0;
      const int64_t padded = w.in[a] + w.pad_before[a] + w.pad_after[a];
      STRATA_CHECK(padded >= k, op, ": the kernel (size ", k, " after dilation) is larger than the ",
                   padding.kind == Padding::Kind::valid ? "input" : "padded input", " (size ", padded,
                   ") along spatial axis ", a - (3 - w.nsp), " with ",
                   padding.kind == Padding::Kind::valid ? "VALID" : "explicit", " padding; ", shapes);
      w.out[a] = (padded - k) / s + 1;
    }
  }
}

void resolve_transposed_padding(Window& w, const Padding& padding, const char* op, const std::string& shapes) {
  if (padding.kind == Padding::Kind::explicit_) read_explicit(w, padding, op);
  for (int a = 3 - w.nsp; a < 3; ++a) {
    const int64_t k = w.dilated_kernel(a), s = w.stride[a];
    if (padding.kind == Padding::Kind::same) {
      w.in[a] = w.out[a] * s;
      const int64_t total = std::max<int64_t>(k - s, 0);  // (out - 1) * s + k - in
      w.pad_before[a] = total / 2;
      w.pad_after[a] = total - total / 2;
    } else {
      if (padding.kind == Padding::Kind::valid) w.pad_before[a] = w.pad_after[a] = 0;
      w.in[a] = (w.out[a] - 1) * s + k - w.pad_before[a] - w.pad_after[a];
      STRATA_CHECK(w.in[a] >= 1, op, ": the padding removes the whole output (size ", w.in[a],
                   ") along spatial axis ", a - (3 - w.nsp), "; ", shapes);
    }
  }
}

}  // namespace strata::ops
