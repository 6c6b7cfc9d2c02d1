// A job in which one rank fails while the others wait in a collective (tests/dist/test_faults.cpp):
//   dist_fault_job throw   rank 1 throws an exception that nothing catches
//   dist_fault_job kill    rank 1 is killed by SIGKILL
// Without the fault handling the other ranks would wait in all_reduce for ever.
#include <csignal>
#include <cstring>
#include <iostream>

#include "strata/dist/dist.hpp"
#include "strata/strata.hpp"

int main(int argc, char** argv) {
  using namespace strata;
  const dist::World& world = dist::init();
  const bool kill = argc > 1 && std::strcmp(argv[1], "kill") == 0;
  dist::barrier();
  if (world.rank == 1) {
    if (kill) std::raise(SIGKILL);
    throw Error("the data on rank 1 is bad");
  }
  Tensor t = ones({4});
  dist::all_reduce(t);  // never completes: rank 1 is gone
  std::cout << "rank " << world.rank << " finished, which it must not\n";
  return 0;
}
