// Denormals are flushed (FTZ/DAZ) on every thread, set once when libstrata loads and inherited by
// the threads made afterwards, OpenMP's included; and loading libstrata makes no OpenMP team (a
// team made at load would be a second one beside a server's batch worker's: see
// include/strata/core/intra_op_threads.hpp).
#include <gtest/gtest.h>
#include <omp.h>
#include <pmmintrin.h>
#include <unistd.h>
#include <xmmintrin.h>

#include <thread>
#include <vector>

#include "support/process_threads.hpp"

namespace {

// Counted before main, after the shared libraries' initializers (libstrata's included) ran.
const int threads_at_start = strata::testing::process_thread_count(::getpid());

bool flushes_denormals() {
  volatile float tiny = 1e-39f;  // a denormal: read as 0 under DAZ
  volatile float product = tiny * 1.0f;
  return _MM_GET_FLUSH_ZERO_MODE() == _MM_FLUSH_ZERO_ON && _MM_GET_DENORMALS_ZERO_MODE() == _MM_DENORMALS_ZERO_ON &&
         product == 0.0f;
}

TEST(DenormalsFlushed, OnThreadsMadeAfterLoadingAndTheirOpenMPTeams) {
  EXPECT_TRUE(flushes_denormals()) << "the loading thread";
  std::vector<int> flushed(4, -1);
  std::thread([&] {
    flushed[0] = flushes_denormals();
#pragma omp parallel num_threads(3)
    flushed[1 + omp_get_thread_num()] = flushes_denormals();
  }).join();
  for (size_t i = 0; i < flushed.size(); ++i) EXPECT_EQ(flushed[i], 1) << "thread " << i;
}

TEST(DenormalsFlushed, LoadingStrataStartsNoThread) { EXPECT_EQ(threads_at_start, 1); }

}  // namespace
