// Issue 43.1: `strata plan submit` of a grid search was quadratic (1,000 trials 0.3 s, 100,000
// 15.5 s): one INSERT per task and row, each writing a 64 KiB page to SQLite's statement journal.
// Plans now go in a few hundred rows per statement. The test compares ten times the tasks with
// the same work in one run (a ratio, so the machine's speed does not matter): linear work takes
// ten times as long, less the fixed costs (measured 8.3-9.6x for submit, and once past 10x when
// the disk cache was cold); quadratic work a hundred times. The bounds sit between: 20x for
// submit, 30x for the whole life (cancelling and cleaning update every row's index entries,
// n log n, 10.0-13.1x measured).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <string>

#include "strata/hub/hub.hpp"
#include "strata/workflow/queue.hpp"
#include "workflow/grid_plan.hpp"
#include "support/address_sanitizer.hpp"
#include "temp_hub.hpp"

namespace strata::reliability {
namespace {

using Clock = std::chrono::steady_clock;

struct Seconds {
  double submit = 0, whole_life = 0;  // whole life: submit, status, cancel and clean
};

class PlanScaling : public TempHub {
 protected:
  // The fastest of three runs on fresh hubs: a run slowed by the machine's other work is dropped.
  Seconds time_plan(int n) {
    const workflow::Plan plan = workflow::testing::grid_plan(n);
    Seconds best{1e9, 1e9};
    for (int run = 0; run < 3; ++run) {
      const std::string url = (dir_ / ("hub" + std::to_string(n) + "_" + std::to_string(run) + ".db")).string();
      auto hub = hub::Hub::open(url);
      workflow::Queue queue(hub);
      const auto start = Clock::now();
      const auto progress = queue.submit(plan);
      const auto submitted = Clock::now();
      EXPECT_EQ(queue.plan_progress(progress.plan_id).count(workflow::TaskStatus::pending), n);
      EXPECT_EQ(queue.cancel_plan(progress.plan_id), n);
      EXPECT_EQ(queue.clean_plan(progress.plan_id).removed.count(workflow::TaskStatus::cancelled), n);
      const auto end = Clock::now();
      best.submit = std::min(best.submit, std::chrono::duration<double>(submitted - start).count());
      best.whole_life = std::min(best.whole_life, std::chrono::duration<double>(end - start).count());
    }
    return best;
  }
};

TEST_F(PlanScaling, TenTimesTheTasksTakeTenTimesAsLongNotAHundred) {
  if (kAddressSanitizer) GTEST_SKIP() << "timing ratios are the release build's (the sanitizers' costs are not the code's)";
  const Seconds small = time_plan(10'000);
  const Seconds large = time_plan(100'000);
  EXPECT_LT(large.submit, 20 * small.submit) << "submit: 10,000 tasks " << small.submit << " s, 100,000 " << large.submit << " s";
  EXPECT_LT(large.whole_life, 30 * small.whole_life)
      << "submit, status, cancel, clean: 10,000 tasks " << small.whole_life << " s, 100,000 " << large.whole_life << " s";
  std::printf("submit: 10,000 tasks %.3f s, 100,000 %.3f s (%.1fx); whole life %.3f s, %.3f s (%.1fx)\n", small.submit,
              large.submit, large.submit / small.submit, small.whole_life, large.whole_life,
              large.whole_life / small.whole_life);
}

}  // namespace
}  // namespace strata::reliability
