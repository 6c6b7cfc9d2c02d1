// Finished tasks are cleaned on request, never silently (issue 13, schema upgrades): a finished
// plan and its tasks are removed and reported; an unfinished one is refused unless forced, and
// forcing cancels what depended on it rather than leave it waiting forever.
#include <gtest/gtest.h>

#include <string>

#include "strata/workflow/queue.hpp"
#include "temp_hub.hpp"

namespace strata::reliability {
namespace {

using workflow::Plan;
using workflow::Queue;
using workflow::TaskStatus;

// Leases and completes every leasable task until none is left.
void run_all(Queue& q) {
  while (auto lease = q.lease("w", {"k"}, {}, 30)) {
    ASSERT_TRUE(q.start(*lease));
    ASSERT_TRUE(q.complete(*lease, "{}"));
  }
}

Plan two_step(const std::string& name) {
  Plan plan(name);
  const int64_t first = plan.add({.kind = "k", .name = "first"});
  plan.add({.kind = "k", .name = "second", .after = {first}});
  return plan;
}

using PlanClean = TempHub;

TEST_F(PlanClean, AFinishedPlanIsRemovedAndReported) {
  auto hub = hub::Hub::open(url_);
  Queue q(hub);
  const auto done = q.submit(two_step("done"));
  run_all(q);
  const auto kept = q.submit(two_step("kept"));  // pending: not finished
  const workflow::PlanCleanup c = q.clean_plan(done.plan_id);
  EXPECT_EQ(c.removed.name, "done");
  EXPECT_EQ(c.removed.count(TaskStatus::succeeded), 2);
  EXPECT_EQ(c.removed.task_ids, done.task_ids);
  for (int64_t id : done.task_ids) EXPECT_FALSE(q.get(id).has_value());
  EXPECT_THROW(q.plan_progress(done.plan_id), Error);
  EXPECT_EQ(q.plan_progress(kept.plan_id).total(), 2);
}

TEST_F(PlanClean, AnUnfinishedPlanIsRefusedUnlessForced) {
  auto hub = hub::Hub::open(url_);
  Queue q(hub);
  const auto running = q.submit(two_step("running"));
  // A task outside the plan waits on the plan's second task.
  const int64_t outside = q.submit({.kind = "k", .name = "outside", .after = {running.task_ids[1]}});
  try {
    q.clean_plan(running.plan_id);
    ADD_FAILURE() << "expected an Error";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("plan " + std::to_string(running.plan_id) + " (running)"), std::string::npos) << what;
    EXPECT_NE(what.find("2 tasks have not finished"), std::string::npos) << what;
  }
  EXPECT_EQ(q.plan_progress(running.plan_id).total(), 2);
  const workflow::PlanCleanup c = q.clean_plan(running.plan_id, /*force=*/true);
  EXPECT_EQ(c.removed.count(TaskStatus::pending), 2);
  EXPECT_EQ(c.outside_links, 1);
  const auto after = q.get(outside);
  ASSERT_TRUE(after);
  EXPECT_EQ(after->status, TaskStatus::cancelled) << "it would have waited forever";
  EXPECT_TRUE(after->depends_on.empty());
}

TEST_F(PlanClean, CleanFinishedPlansTakesOnlyFinishedOnes) {
  auto hub = hub::Hub::open(url_);
  Queue q(hub);
  const auto a = q.submit(two_step("a"));
  const auto b = q.submit(two_step("b"));
  run_all(q);
  const auto c = q.submit(two_step("c"));
  q.cancel_plan(b.plan_id);  // already finished: cancelling changes nothing
  const auto removed = q.clean_finished_plans();
  ASSERT_EQ(removed.size(), 2u);
  EXPECT_EQ(removed[0].removed.plan_id, a.plan_id);
  EXPECT_EQ(removed[1].removed.plan_id, b.plan_id);
  EXPECT_EQ(q.plan_progress(c.plan_id).count(TaskStatus::pending), 2);
  EXPECT_TRUE(q.clean_finished_plans().empty());
}

TEST_F(PlanClean, TheCommandLineSaysWhatItRemoved) {
  int64_t finished = 0, pending = 0;
  {
    auto hub = hub::Hub::open(url_);
    Queue q(hub);
    finished = q.submit(two_step("finished")).plan_id;
    run_all(q);
    pending = q.submit(two_step("pending")).plan_id;
  }
  CliResult r = strata("plan clean " + std::to_string(pending));
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_NE(r.err.find("have not finished"), std::string::npos) << r.err;
  r = strata("plan clean --finished");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("removed plan " + std::to_string(finished) + " (finished)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("1 finished plans removed"), std::string::npos) << r.out;
  r = strata("plan clean --force " + std::to_string(pending));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("removed plan " + std::to_string(pending) + " (pending)"), std::string::npos) << r.out;
  r = strata("plan status " + std::to_string(pending));
  EXPECT_EQ(r.status, 1);
}

}  // namespace
}  // namespace strata::reliability
