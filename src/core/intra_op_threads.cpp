#include "strata/core/intra_op_threads.hpp"

#include <omp.h>

#include <algorithm>
#include <string>

#include "strata/core/error.hpp"

namespace strata {
namespace {
thread_local int g_limit = 0;
thread_local FollowLoad g_follow_load = FollowLoad::kYes;
// Read at load, before any thread's omp_set_num_threads (apply_thread_budget) lowers its own.
const int g_max_threads = omp_get_max_threads();
}  // namespace

IntraOpThreadLimit::IntraOpThreadLimit(int max_threads, FollowLoad follow_load)
    : previous_limit_(g_limit), previous_follow_load_(g_follow_load) {
  STRATA_CHECK(max_threads >= 1, "IntraOpThreadLimit: the thread cap must be at least 1, got ",
               std::to_string(max_threads));
  g_limit = max_threads;
  g_follow_load = follow_load;
}

IntraOpThreadLimit::~IntraOpThreadLimit() {
  g_limit = previous_limit_;
  g_follow_load = previous_follow_load_;
}

int intra_op_thread_limit() { return g_limit; }

FollowLoad intra_op_threads_follow_load() { return g_follow_load; }

int intra_op_threads_max() { return g_max_threads; }

int intra_op_threads_share(int sharers) {
  STRATA_CHECK(sharers >= 1, "intra_op_threads_share: at least one sharer is needed, got ", std::to_string(sharers));
  return std::max(1, g_max_threads / sharers);
}

}  // namespace strata
