// A cap on the threads Strata's kernels use for work started on the calling thread.
//
// Every thread that starts parallel work gets an OpenMP team of its own, and libgomp stops its
// idle threads from spinning once the threads of all teams outnumber the cores: each parallel
// region then puts the team to sleep and wakes it again (a served CNN's run took twice its time,
// docs/serving.md). A process with several threads doing tensor work keeps the teams within the
// cores by capping the threads that do not need one to 1 (no team is made for 1 thread).
#pragma once

namespace strata {

// Whether the load-adaptive budget (kernels/cpu/thread_budget.hpp) may lower the count below the
// cap when other processes keep cores busy.
enum class FollowLoad { kYes, kNo };

// While alive, kernels called from this thread use at most `max_threads` threads (>= 1); with
// FollowLoad::kNo exactly that many (capped by OpenMP's maximum), whatever the load: for a thread
// that owns its cores, such as a server's batch worker, whose clients would count as load.
// Scopes nest; the innermost wins.
class IntraOpThreadLimit {
 public:
  explicit IntraOpThreadLimit(int max_threads, FollowLoad follow_load = FollowLoad::kYes);
  ~IntraOpThreadLimit();
  IntraOpThreadLimit(const IntraOpThreadLimit&) = delete;
  IntraOpThreadLimit& operator=(const IntraOpThreadLimit&) = delete;

 private:
  int previous_limit_;
  FollowLoad previous_follow_load_;
};

// The calling thread's cap; 0 when no IntraOpThreadLimit is alive on it.
int intra_op_thread_limit();
// Whether the calling thread's count follows the load (kYes when no IntraOpThreadLimit is alive).
FollowLoad intra_op_threads_follow_load();
// The most threads kernels use on one calling thread: OMP_NUM_THREADS, or else the cores this
// process may run on, as OpenMP saw them when libstrata was loaded.
int intra_op_threads_max();
// The threads each of `sharers` threads doing tensor work at once may use so that their teams
// together stay within intra_op_threads_max(): at least 1 (a server's batch workers, a
// workflow worker's slots).
int intra_op_threads_share(int sharers);

}  // namespace strata
