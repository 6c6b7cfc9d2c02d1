#include "strata/dist/world.hpp"

#include <chrono>
#include <cstdlib>
#include <exception>
#include <string>
#include <thread>

#include <unistd.h>

#include "dist/mpi_types.hpp"
#include "strata/core/error.hpp"

namespace strata::dist {
namespace {

World g_world;
bool g_started = false;
double g_exit_timeout_s = 600;

// An exception that escapes on one rank would otherwise leave the others blocked in their next
// collective until someone kills the job: abort all of them, saying which rank failed and why.
[[noreturn]] void abort_on_uncaught_exception() {
  std::string what = "terminate called without an active exception";
  if (std::exception_ptr e = std::current_exception()) {
    try {
      std::rethrow_exception(e);
    } catch (const std::exception& ex) {
      what = std::string("uncaught exception: ") + ex.what();
    } catch (...) {
      what = "uncaught exception of a type not derived from std::exception";
    }
  }
  abort(what, 1);
}

// STRATA_DIST_EXIT_TIMEOUT: seconds a finished rank waits at exit for the others (default 600).
double exit_timeout_from_environment() {
  const char* text = std::getenv("STRATA_DIST_EXIT_TIMEOUT");
  if (text == nullptr || *text == '\0') return 600;
  char* end = nullptr;
  const double seconds = std::strtod(text, &end);
  STRATA_CHECK(*end == '\0' && seconds > 0 && seconds <= 1e6, "dist::init: STRATA_DIST_EXIT_TIMEOUT must be a ",
               "number of seconds in (0, 1e6], got '", text, "'");
  return seconds;
}

// A rank that ends early (main caught an error and returned) would wait in MPI_Finalize for ever
// while the others wait for it in a collective. So a finished rank first waits, at most the exit
// timeout, for every rank to finish (a non-blocking barrier, polled gently), then aborts the job.
void finalize_at_exit() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized) return;
  MPI_Request everyone_done;
  MPI_Ibarrier(MPI_COMM_WORLD, &everyone_done);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(g_exit_timeout_s);
  for (int done = 0; MPI_Test(&everyone_done, &done, MPI_STATUS_IGNORE), !done;) {
    if (std::chrono::steady_clock::now() > deadline)
      abort("finished, but other ranks did not within " + std::to_string(static_cast<int64_t>(g_exit_timeout_s)) +
                " s (STRATA_DIST_EXIT_TIMEOUT): a rank ended early or is stuck",
            1);
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  MPI_Finalize();
  g_started = false;
}

}  // namespace

const World& init() {
  if (g_started) return g_world;
  g_exit_timeout_s = exit_timeout_from_environment();
  int already = 0;
  MPI_Initialized(&already);
  if (!already) {
    // Below 4 ranks Open MPI's non-blocking all-reduce (libnbc: every bucket but the last) takes
    // a binomial tree: one rank receives every byte, reduces alone and sends the sum back. The
    // ring splits both between the ranks: 64 MB of buckets over 2 ranks took 1.5x the time of
    // one MPI_Allreduce instead of 2.5x (docs/distributed.md). A default only: the user's wins.
    ::setenv("OMPI_MCA_coll_libnbc_iallreduce_algorithm", "1", /*overwrite=*/0);
    int provided = 0;
    MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
    STRATA_CHECK(provided >= MPI_THREAD_FUNNELED,
                 "dist::init: the MPI library gives thread level ", provided, ", Strata needs MPI_THREAD_FUNNELED");
    std::atexit(finalize_at_exit);
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &g_world.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_world.size);
  // The processes sharing this host's memory: their order is the local rank.
  MPI_Comm local;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, g_world.rank, MPI_INFO_NULL, &local);
  MPI_Comm_rank(local, &g_world.local_rank);
  MPI_Comm_size(local, &g_world.local_size);
  MPI_Comm_free(&local);
  std::set_terminate(abort_on_uncaught_exception);
  g_started = true;
  return g_world;
}

bool initialized() { return g_started; }

const World& world() {
  STRATA_CHECK(g_started, "dist: call dist::init() before using the process group");
  return g_world;
}

void abort(const std::string& why, int code) {
  // One write: std::cerr writes each piece apart, and mpirun's own abort notice, on the same
  // stream of a job's log, landed in the middle of the line.
  const std::string line = "strata::dist: rank " + std::to_string(g_world.rank) + " of " + std::to_string(g_world.size) +
                           ": " + why + "; aborting the job\n";
  [[maybe_unused]] const ssize_t written = ::write(STDERR_FILENO, line.data(), line.size());
  int ready = 0, finalized = 0;
  MPI_Initialized(&ready);
  MPI_Finalized(&finalized);
  if (ready && !finalized) MPI_Abort(MPI_COMM_WORLD, code);
  std::_Exit(code);
}

}  // namespace strata::dist
