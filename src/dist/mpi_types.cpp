#include "dist/mpi_types.hpp"

#include <limits>

#include "strata/core/error.hpp"

namespace strata::dist::detail {

MPI_Datatype mpi_type(const Tensor& t, const char* who) {
  if (t.dtype() == kFloat32) return MPI_FLOAT;
  if (t.dtype() == kFloat64) return MPI_DOUBLE;
  throw Error(std::string(who) + ": expected a float32 or float64 tensor, got " + dtype_name(t.dtype()));
}

void check_buffer(const Tensor& t, const char* who) {
  STRATA_CHECK(t.defined(), who, ": the tensor is undefined");
  STRATA_CHECK(!t.is_meta(), who, ": the tensor is a meta (shape-only) tensor with no data");
  STRATA_CHECK(t.is_contiguous(), who, ": the tensor must be contiguous (it is changed in place); call .contiguous()");
  mpi_type(t, who);
  STRATA_CHECK(t.numel() <= std::numeric_limits<int>::max(), who, ": ", t.numel(),
               " elements is more than one MPI call can send; split the tensor");
}

void scale(const void* src, void* dst, int64_t count, MPI_Datatype type, double factor) {
  if (type == MPI_FLOAT) {
    const auto* in = static_cast<const float*>(src);
    auto* out = static_cast<float*>(dst);
    const auto f = static_cast<float>(factor);
    for (int64_t i = 0; i < count; ++i) out[i] = in[i] * f;
  } else {
    const auto* in = static_cast<const double*>(src);
    auto* out = static_cast<double*>(dst);
    for (int64_t i = 0; i < count; ++i) out[i] = in[i] * factor;
  }
}

}  // namespace strata::dist::detail
