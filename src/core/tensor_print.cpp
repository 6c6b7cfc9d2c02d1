// Printing like PyTorch: nested brackets, aligned values, edges only ("...") past 1000 elements.
#include <cmath>
#include <cstdio>
#include <sstream>

#include "strata/core/tensor.hpp"

namespace strata {
namespace {

constexpr int64_t kSummariseAbove = 1000;
constexpr int64_t kEdgeItems = 3;

std::string format_value(double v, DType dt) {
  char buf[64];
  if (dt == kBool) return v != 0 ? "True" : "False";
  if (!is_floating(dt)) {
    std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(v));
  } else if (std::isnan(v) || std::isinf(v)) {
    return std::isnan(v) ? "nan" : (v > 0 ? "inf" : "-inf");
  } else if (v != 0 && (std::fabs(v) >= 1e8 || std::fabs(v) < 1e-4)) {
    std::snprintf(buf, sizeof buf, "%.4e", v);
  } else {
    std::snprintf(buf, sizeof buf, "%.4f", v);
  }
  return buf;
}

struct Printer {
  const Tensor& t;
  bool summarise;
  std::vector<double> flat_values;  // row-major
  size_t width = 0;

  void write(std::ostringstream& os, int dim, int64_t flat_offset, int indent) {
    if (t.dim() == 0) {
      os << format_value(flat_values[0], t.dtype());
      return;
    }
    int64_t n = t.shape()[dim];
    int64_t inner = 1;
    for (int d = dim + 1; d < t.dim(); ++d) inner *= t.shape()[d];
    os << "[";
    for (int64_t i = 0; i < n; ++i) {
      if (summarise && n > 2 * kEdgeItems && i == kEdgeItems) {
        os << "...";
        i = n - kEdgeItems - 1;
        os << (dim == t.dim() - 1 ? ", " : ",\n" + std::string(indent + 1, ' '));
        continue;
      }
      if (dim == t.dim() - 1) {
        std::string s = format_value(flat_values[flat_offset + i], t.dtype());
        os << std::string(width - s.size(), ' ') << s;
      } else {
        write(os, dim + 1, flat_offset + i * inner, indent + 1);
      }
      if (i + 1 < n) os << (dim == t.dim() - 1 ? ", " : "," + std::string(t.dim() - dim - 1, '\n') +
                                                              std::string(indent + 1, ' '));
    }
    os << "]";
  }
};

}  // namespace

std::string Tensor::str() const {
  if (!defined()) return "tensor(undefined)";
  if (is_meta()) return "tensor(..., shape=" + shape().str() + ", dtype=" + dtype_name(dtype()) + ", device=meta)";
  Printer p{*this, numel() > kSummariseAbove, to_vector<double>()};
  for (double v : p.flat_values) p.width = std::max(p.width, format_value(v, dtype()).size());
  std::ostringstream os;
  os << "tensor(";
  p.write(os, 0, 0, 7);
  os << ", shape=" << shape().str() << ", dtype=" << dtype_name(dtype());
  if (requires_grad()) os << ", requires_grad=true";
  os << ")";
  return os.str();
}

std::ostream& operator<<(std::ostream& os, const Tensor& t) { return os << t.str(); }

}  // namespace strata
