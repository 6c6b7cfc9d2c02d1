// The defaults dist::init gives Open MPI, read back from the library through the MPI tool
// interface (MPI_T): what Open MPI itself will use, not only what the environment says.
#include <mpi.h>

#include <gtest/gtest.h>

#include <optional>

namespace strata {
namespace {

// An integer control variable of the MPI library, or nothing where it has none of that name.
std::optional<int> control_variable(const char* name) {
  int provided = 0;
  if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS) return std::nullopt;
  std::optional<int> value;
  int index = 0, count = 0;
  MPI_T_cvar_handle handle;
  if (MPI_T_cvar_get_index(name, &index) == MPI_SUCCESS &&
      MPI_T_cvar_handle_alloc(index, nullptr, &handle, &count) == MPI_SUCCESS) {
    int read = 0;
    if (count == 1 && MPI_T_cvar_read(handle, &read) == MPI_SUCCESS) value = read;
    MPI_T_cvar_handle_free(&handle);
  }
  MPI_T_finalize();
  return value;
}

TEST(DistMpiDefaults, NonBlockingAllReduceTakesTheRing) {
  // 1 is the ring in Open MPI's libnbc (ompi_info --param coll libnbc --level 9): below 4 ranks
  // its default is a binomial tree, 1.7x slower for the buckets (docs/distributed.md).
  const auto algorithm = control_variable("coll_libnbc_iallreduce_algorithm");
  if (!algorithm) GTEST_SKIP() << "this MPI library has no libnbc (not Open MPI)";
  EXPECT_EQ(*algorithm, 1);
}

}  // namespace
}  // namespace strata
