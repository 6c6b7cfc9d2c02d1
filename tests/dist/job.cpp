// The job that tests/dist/test_jobs.cpp starts with mpirun or `strata launch`:
//   dist_job hello ARGS   each rank prints "rank R of N: ARGS" after a barrier
//   dist_job throw        rank 1 throws an exception that nothing catches
//   dist_job kill         rank 1 is killed by SIGKILL
// In the last two, without the fault handling the other ranks would wait in all_reduce for ever.
#include <csignal>
#include <string>
#include <iostream>

#include "strata/dist/dist.hpp"
#include "strata/strata.hpp"

int main(int argc, char** argv) {
  using namespace strata;
  const dist::World& world = dist::init();
  const std::string mode = argc > 1 ? argv[1] : "";
  dist::barrier();
  if (mode == "hello") {
    std::cout << "rank " << world.rank << " of " << world.size << ":";
    for (int i = 2; i < argc; ++i) std::cout << ' ' << argv[i];
    std::cout << std::endl;
    return 0;
  }
  if (world.rank == 1) {
    if (mode == "kill") std::raise(SIGKILL);
    throw Error("the data on rank 1 is bad");
  }
  Tensor t = ones({4});
  dist::all_reduce(t);  // never completes: rank 1 is gone
  std::cout << "rank " << world.rank << " finished, which it must not\n";
  return 0;
}
