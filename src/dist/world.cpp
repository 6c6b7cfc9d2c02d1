#include "strata/dist/world.hpp"

#include <cstdlib>
#include <exception>
#include <iostream>

#include "dist/mpi_types.hpp"
#include "strata/core/error.hpp"

namespace strata::dist {
namespace {

World g_world;
bool g_started = false;

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

void finalize_at_exit() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
  g_started = false;
}

}  // namespace

const World& init() {
  if (g_started) return g_world;
  int already = 0;
  MPI_Initialized(&already);
  if (!already) {
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
  std::cerr << "strata::dist: rank " << g_world.rank << " of " << g_world.size << ": " << why
            << "; aborting the job\n"
            << std::flush;
  int ready = 0, finalized = 0;
  MPI_Initialized(&ready);
  MPI_Finalized(&finalized);
  if (ready && !finalized) MPI_Abort(MPI_COMM_WORLD, code);
  std::_Exit(code);
}

}  // namespace strata::dist
