// The thread budget (kernels/cpu/thread_budget.hpp): kernels use no more OpenMP threads than
// there are cores left free by other processes, so a busy machine does not stall every
// fork-join region on a descheduled thread (issue 13, "under load").
#include <gtest/gtest.h>
#include <omp.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <thread>
#include <vector>

#include "kernels/cpu/thread_budget.hpp"
#include "strata/core/error.hpp"
#include "strata/core/intra_op_threads.hpp"

namespace strata::kernels::cpu {
namespace {

TEST(ThreadBudget, LeavesTheCoresOtherProcessesKeepBusy) {
  EXPECT_EQ(thread_budget(2, 2, 0), 2);
  EXPECT_EQ(thread_budget(2, 2, 1), 1);
  EXPECT_EQ(thread_budget(2, 2, 7), 1);    // never fewer than one
  EXPECT_EQ(thread_budget(16, 16, 1), 15);
  EXPECT_EQ(thread_budget(4, 16, 0), 4);   // never more than OMP_NUM_THREADS asked for
}

TEST(ThreadBudget, ReadsProcsRunningAndTaskStates) {
  EXPECT_EQ(procs_running_from_stat("cpu  1 2 3\nctxt 99\nprocs_running 12\nprocs_blocked 0\n"), 12);
  EXPECT_EQ(procs_running_from_stat("cpu  1 2 3\n"), -1);
  EXPECT_EQ(task_state_from_stat("4242 (a) (b) R 1 2 3"), 'R');  // a command name with ") ("
  EXPECT_EQ(task_state_from_stat("4242 (worker) S 1 2 3"), 'S');
  EXPECT_EQ(task_state_from_stat("garbage"), '?');
}

// With as many busy processes as cores, the budget falls to one thread within a second.
TEST(ThreadBudget, FallsToOneThreadWhenEveryCoreIsBusy) {
  const char* env = std::getenv("STRATA_ADAPTIVE_THREADS");
  if (env != nullptr && env[0] == '0') GTEST_SKIP() << "STRATA_ADAPTIVE_THREADS=0";
  const int most = omp_get_max_threads();
  if (most < 2) GTEST_SKIP() << "one OpenMP thread: nothing to adapt";
  const unsigned cores = std::thread::hardware_concurrency();
  std::vector<pid_t> spinners;
  for (unsigned i = 0; i < cores; ++i) {
    const pid_t pid = fork();
    if (pid == 0) {
      volatile unsigned long spin = 0;
      for (;;) spin = spin + 1;
    }
    spinners.push_back(pid);
  }
  int budget = apply_thread_budget();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(3);
  while (budget != 1 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    budget = apply_thread_budget();
  }
  // A thread that owns its cores (FollowLoad::kNo: a server's batch worker) keeps its count.
  int fixed = 0;
  std::thread([&] {
    IntraOpThreadLimit own_cores(most, FollowLoad::kNo);
    fixed = apply_thread_budget();
  }).join();
  for (pid_t pid : spinners) {
    kill(pid, SIGKILL);
    waitpid(pid, nullptr, 0);
  }
  EXPECT_EQ(budget, 1);
  EXPECT_EQ(omp_get_max_threads(), 1);  // applied to this thread's OpenMP regions
  EXPECT_EQ(fixed, most);
}

// A thread's IntraOpThreadLimit caps what its kernels use and, once gone, gives the budget back;
// another thread's cap is its own.
TEST(ThreadBudget, IntraOpThreadLimitCapsOnlyTheCallingThreadForItsScope) {
  const int uncapped = apply_thread_budget();
  {
    IntraOpThreadLimit one(1);
    EXPECT_EQ(intra_op_thread_limit(), 1);
    EXPECT_EQ(apply_thread_budget(), 1);
    EXPECT_EQ(omp_get_max_threads(), 1);  // what this thread's OpenMP regions start with
    int other_thread_cap = -1;
    std::thread([&] { other_thread_cap = intra_op_thread_limit(); }).join();
    EXPECT_EQ(other_thread_cap, 0);
  }
  EXPECT_EQ(intra_op_thread_limit(), 0);
  // The budget may have moved with the machine's load meanwhile; whatever it is now, this
  // thread's OpenMP regions get it again, not the cap.
  const int after = apply_thread_budget();
  EXPECT_GE(after, 1);
  EXPECT_LE(after, std::max(uncapped, omp_get_num_procs()));
  EXPECT_EQ(omp_get_max_threads(), after);
  EXPECT_THROW(IntraOpThreadLimit(0), Error);
}

}  // namespace
}  // namespace strata::kernels::cpu
