// How many OpenMP threads Strata's kernels use right now: the cores this process may run on,
// less the threads of other processes that are runnable. OpenMP's fork-join regions wait for
// their slowest thread; when another process keeps a core busy, one of our threads is
// descheduled for a whole timeslice at every region and training crawled at 9% of its quiet
// speed. With no more threads than free cores, no region waits on a busy core.
//
// STRATA_ADAPTIVE_THREADS=0 turns this off (the OpenMP thread count is then left alone). The
// most threads used is intra_op_threads_max() (OMP_NUM_THREADS, or the cores).
#pragma once
#include <string_view>

namespace strata::kernels::cpu {

// Sets the calling thread's OpenMP thread count (omp_set_num_threads) to the current budget
// (capped by the calling thread's IntraOpThreadLimit) and returns it. The load is re-read at most every 100 ms; between reads this is a clock read.
// Called where kernels start parallel work; a no-op inside a parallel region.
int apply_thread_budget();

// The pieces, exposed for tests. Threads for `cpus` usable cores when `others` threads of other
// processes are runnable: at least 1, at most `max_threads`.
int thread_budget(int max_threads, int cpus, int others);
// "procs_running N" from the text of /proc/stat; -1 when absent.
int procs_running_from_stat(std::string_view proc_stat);
// The state letter of a /proc/<pid>/task/<tid>/stat line (after the command's closing paren).
char task_state_from_stat(std::string_view task_stat);

}  // namespace strata::kernels::cpu
