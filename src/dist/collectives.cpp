#include "strata/dist/collectives.hpp"

#include <cstring>
#include <string>

#include "dist/mpi_types.hpp"
#include "strata/core/error.hpp"
#include "strata/dist/world.hpp"

namespace strata::dist {
namespace {

// Collectives on buffers of different sizes would read past the end of the smaller ones or
// hang: every process first checks that all of them pass the same kind of tensor (a hash of
// dtype, shape and `extra`, e.g. the root), with one two-number reduction.
void check_same_everywhere(const Tensor& t, int64_t extra, const char* who) {
  uint64_t h = 1469598103934665603ull;  // FNV-1a over the signature
  auto mix = [&h](int64_t v) {
    h ^= static_cast<uint64_t>(v);
    h *= 1099511628211ull;
  };
  mix(static_cast<int64_t>(t.dtype()));
  mix(t.dim());
  for (int i = 0; i < t.dim(); ++i) mix(t.size(i));
  mix(extra);
  const auto key = static_cast<int64_t>(h >> 1);
  int64_t in[2] = {key, -key}, out[2] = {0, 0};
  MPI_Allreduce(in, out, 2, MPI_INT64_T, MPI_MIN, MPI_COMM_WORLD);
  STRATA_CHECK(out[0] == -out[1], who, ": the processes passed different tensors (rank ", world().rank, " has ",
               dtype_name(t.dtype()), " ", t.shape().str(),
               extra != 0 ? ", root " + std::to_string(extra - 1) : std::string(),
               "); every process must pass the same shape and dtype");
}

}  // namespace

void all_reduce(Tensor& t, ReduceOp op) {
  const char* who = "dist::all_reduce";
  world();
  detail::check_buffer(t, who);
  check_same_everywhere(t, 0, who);
  const MPI_Datatype type = detail::mpi_type(t, who);
  MPI_Allreduce(MPI_IN_PLACE, t.raw_data(), static_cast<int>(t.numel()), type, MPI_SUM, MPI_COMM_WORLD);
  if (op == ReduceOp::avg) detail::scale(t.raw_data(), t.raw_data(), t.numel(), type, 1.0 / world().size);
}

void broadcast(Tensor& t, int root) {
  const char* who = "dist::broadcast";
  const World& w = world();
  STRATA_CHECK(root >= 0 && root < w.size, who, ": root ", root, " is not a rank of this job (0..", w.size - 1, ")");
  detail::check_buffer(t, who);
  check_same_everywhere(t, root + 1, who);
  MPI_Bcast(t.raw_data(), static_cast<int>(t.numel()), detail::mpi_type(t, who), root, MPI_COMM_WORLD);
}

Tensor all_gather(const Tensor& t) {
  const char* who = "dist::all_gather";
  const World& w = world();
  STRATA_CHECK(t.defined(), who, ": the tensor is undefined");
  const Tensor in = t.is_contiguous() ? t : t.contiguous();
  detail::check_buffer(in, who);
  const MPI_Datatype type = detail::mpi_type(in, who);
  check_same_everywhere(in, 0, who);
  std::vector<int64_t> dims = {w.size};
  for (int i = 0; i < in.dim(); ++i) dims.push_back(in.size(i));
  Tensor out = Tensor::empty(Shape(dims), in.dtype());
  const int count = static_cast<int>(in.numel());
  MPI_Allgather(in.raw_data(), count, type, out.raw_data(), count, type, MPI_COMM_WORLD);
  return out;
}

void barrier() {
  world();
  MPI_Barrier(MPI_COMM_WORLD);
}

}  // namespace strata::dist
