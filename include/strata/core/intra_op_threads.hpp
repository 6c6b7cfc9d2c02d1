// A cap on the threads Strata's kernels use for work started on the calling thread. A server
// that runs a batch-1 request on the thread that received it wants that run on this thread
// alone: waking an OpenMP team costs more than it saves on so little work, and every calling
// thread would otherwise keep a team of its own.
#pragma once

namespace strata {

// While alive, kernels called from this thread use at most `max_threads` threads (>= 1).
// Scopes nest; the innermost wins.
class IntraOpThreadLimit {
 public:
  explicit IntraOpThreadLimit(int max_threads);
  ~IntraOpThreadLimit();
  IntraOpThreadLimit(const IntraOpThreadLimit&) = delete;
  IntraOpThreadLimit& operator=(const IntraOpThreadLimit&) = delete;

 private:
  int previous_;
};

// The calling thread's cap; 0 when no IntraOpThreadLimit is alive on it.
int intra_op_thread_limit();

}  // namespace strata
