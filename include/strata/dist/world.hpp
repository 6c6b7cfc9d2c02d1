// The processes of a data-parallel job, started by mpirun (or `strata launch`): which one this
// is (rank), how many there are (size) and which on this host (local rank). MPI stays behind
// this header: nothing here includes mpi.h.
//   const dist::World& world = dist::init();
//   if (world.rank == 0) std::cout << "training on " << world.size << " processes\n";
#pragma once
#include <string>

namespace strata::dist {

struct World {
  int rank = 0;         // 0 .. size - 1 in the job
  int size = 1;         // processes in the job
  int local_rank = 0;   // 0 .. local_size - 1 among the job's processes on this host
  int local_size = 1;
};

// Starts MPI once per process (thread level "funneled": MPI is called from the thread that
// called init; OpenMP kernels run on other threads) and returns the job's layout. Later calls
// return the same World. A program run without mpirun is a job of one process.
//
// Faults: init installs a std::terminate handler, so an exception that escapes on any rank
// prints "strata::dist: rank R of N: <what>" and aborts the whole job (MPI_Abort): the other
// ranks exit within seconds instead of waiting in a collective. A rank killed by a signal makes
// mpirun end the job too. MPI errors abort the job (MPI's default handler). At exit a rank
// waits for every rank to finish, at most STRATA_DIST_EXIT_TIMEOUT seconds (default 600), then
// aborts the job: a rank whose main returned early does not leave the others waiting for ever.
// Then MPI is finalised.
const World& init();

// Whether init() ran (and MPI is not finalised yet).
bool initialized();

// The World of init(); throws strata::Error before init().
const World& world();

// Prints `why` with this rank's number and ends every process of the job with `code`.
[[noreturn]] void abort(const std::string& why, int code = 1);

}  // namespace strata::dist
