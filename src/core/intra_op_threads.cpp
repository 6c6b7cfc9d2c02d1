#include "strata/core/intra_op_threads.hpp"

#include <string>

#include "strata/core/error.hpp"

namespace strata {
namespace {
thread_local int g_limit = 0;
}  // namespace

IntraOpThreadLimit::IntraOpThreadLimit(int max_threads) : previous_(g_limit) {
  STRATA_CHECK(max_threads >= 1, "IntraOpThreadLimit: the thread cap must be at least 1, got ",
               std::to_string(max_threads));
  g_limit = max_threads;
}

IntraOpThreadLimit::~IntraOpThreadLimit() { g_limit = previous_; }

int intra_op_thread_limit() { return g_limit; }

}  // namespace strata
