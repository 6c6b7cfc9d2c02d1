// Replay of tasks that failed for good (Queue::retry, `strata plan retry`): the failed task and
// the dependents its failure cancelled run again, earlier runs are kept, stale attempts stay
// fenced off; and a worker told to exit when idle stays for a retry that is still scheduled.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>

#include <nlohmann/json.hpp>

#include "support/expect_error.hpp"
#include "hub/hub_fixture.hpp"
#include "strata/workflow/queue.hpp"
#include "strata/workflow/worker.hpp"

namespace strata::workflow {
namespace {

using hub::testing::HubTest;
using nlohmann::json;
using strata::testing::expect_error;

using RetryTest = HubTest;
INSTANTIATE_TEST_SUITE_P(Backends, RetryTest, ::testing::Values("sqlite", "postgres"),
                         [](const ::testing::TestParamInfo<std::string>& p) { return p.param; });

const std::vector<std::string> kRetryKinds = {"k"};

// Leases the next task, which must be `id`, and fails it.
Lease fail_next(Queue& q, int64_t id, const std::string& error, bool permanent = false) {
  auto l = q.lease("w", kRetryKinds, {}, 30);
  EXPECT_TRUE(l && l->task.id == id) << "expected task " << id;
  q.fail(*l, error, "tail of " + error, permanent);
  return *l;
}

void complete_next(Queue& q, int64_t id) {
  auto l = q.lease("w", kRetryKinds, {}, 30);
  ASSERT_TRUE(l && l->task.id == id) << "expected task " << id;
  ASSERT_TRUE(q.complete(*l, "{}"));
}

TEST_P(RetryTest, FailedTaskRunsAgainWithItsCancelledDependentsKeepingHistory) {
  auto hub = open();
  Queue q(hub);
  Plan plan("replay");
  const int64_t root_n = plan.add({.kind = "k", .name = "root", .max_attempts = 2, .retry_delay_seconds = 0});
  const int64_t child_n = plan.add({.kind = "k", .name = "child", .after = {root_n}});
  plan.add({.kind = "k", .name = "grandchild", .after = {child_n}});
  const int64_t sibling_n = plan.add({.kind = "k", .name = "sibling", .max_attempts = 1});
  plan.add({.kind = "k", .name = "joint", .after = {child_n, sibling_n}});
  const PlanProgress p = q.submit(plan);
  const int64_t root = p.task_ids[0], child = p.task_ids[1], grandchild = p.task_ids[2], sibling = p.task_ids[3],
                joint = p.task_ids[4];
  const int64_t outside = q.submit({.kind = "other"});

  fail_next(q, root, "boom 1");
  const Lease stale = fail_next(q, root, "boom 2");
  fail_next(q, sibling, "bad", true);
  for (int64_t id : {child, grandchild, joint}) ASSERT_EQ(q.get(id)->status, TaskStatus::cancelled);
  ASSERT_EQ(q.get(root)->status, TaskStatus::failed);

  // The root alone: the joint task also waits on the failed sibling, so it stays cancelled.
  EXPECT_EQ(q.retry(p.plan_id, {root}), (std::vector<int64_t>{root, child, grandchild}));
  const Task r = *q.get(root);
  EXPECT_EQ(r.status, TaskStatus::pending);
  EXPECT_EQ(r.attempts, 2) << "attempt numbers keep counting";
  EXPECT_EQ(r.max_attempts, 4) << "as many attempts again";
  EXPECT_TRUE(r.error.empty() && r.log_tail.empty() && !r.finished_at);
  EXPECT_EQ(q.get(child)->status, TaskStatus::pending);
  EXPECT_EQ(q.get(joint)->status, TaskStatus::cancelled);
  const auto runs = q.history(root);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].status, TaskStatus::failed);
  EXPECT_EQ(runs[0].attempts, 2);
  EXPECT_EQ(runs[0].max_attempts, 2);
  EXPECT_EQ(runs[0].error, "boom 2");
  EXPECT_EQ(runs[0].log_tail, "tail of boom 2");
  EXPECT_EQ(runs[0].worker, "w");
  EXPECT_TRUE(runs[0].finished_at && runs[0].retried_at >= *runs[0].finished_at);
  const auto child_runs = q.history(child);
  ASSERT_EQ(child_runs.size(), 1u);
  EXPECT_EQ(child_runs[0].status, TaskStatus::cancelled);
  EXPECT_NE(child_runs[0].error.find("failed: boom 2"), std::string::npos) << child_runs[0].error;

  EXPECT_FALSE(q.complete(stale, "{}")) << "the earlier run's attempt stays fenced off";
  auto again = q.lease("w", kRetryKinds, {}, 30);
  ASSERT_TRUE(again && again->task.id == root);
  EXPECT_EQ(again->attempt, 3);
  ASSERT_TRUE(q.complete(*again, "{}"));
  complete_next(q, child);
  complete_next(q, grandchild);
  EXPECT_FALSE(q.lease("w", kRetryKinds, {}, 30));

  // Everything failed in the plan: the sibling, and now the joint task with it.
  EXPECT_EQ(q.retry(p.plan_id), (std::vector<int64_t>{sibling, joint}));
  fail_next(q, sibling, "bad again");
  EXPECT_EQ(q.get(sibling)->status, TaskStatus::failed) << "one attempt again, as its run had";
  EXPECT_EQ(q.retry(p.plan_id, {sibling}), (std::vector<int64_t>{sibling, joint}));
  EXPECT_EQ(q.get(sibling)->max_attempts, 3);
  EXPECT_EQ(q.history(sibling).size(), 2u);
  EXPECT_EQ(q.history(joint).size(), 2u);
  complete_next(q, sibling);
  complete_next(q, joint);
  EXPECT_TRUE(q.plan_progress(p.plan_id).all_succeeded());
  EXPECT_TRUE(q.retry(p.plan_id).empty()) << "nothing failed";

  expect_error([&] { q.retry(p.plan_id, {root}); }, {"task " + std::to_string(root) + " is succeeded, not failed"});
  expect_error([&] { q.retry(p.plan_id, {outside}); }, {"no task " + std::to_string(outside) + " in plan"});
  expect_error([&] { q.retry(p.plan_id + 100); }, {"no plan"});
  q.clean_plan(p.plan_id);  // removes the history with the tasks
  EXPECT_TRUE(q.history(root).empty());
}

TEST_P(RetryTest, WorkerExitingWhenIdleWaitsForAScheduledRetry) {
  TaskRegistry r;
  r.add({.name = "flaky", .fn = [](TaskContext& ctx) -> json {
           if (ctx.task.attempts < 2) throw Error("first attempt fails");
           return json::object();
         }});
  r.add({.name = "fail", .fn = [](TaskContext&) -> json { throw Error("always"); }});
  auto hub = open();
  Queue q(hub);
  const int64_t flaky = q.submit({.kind = "flaky", .max_attempts = 2, .retry_delay_seconds = 0.3});
  const int64_t fail = q.submit({.kind = "fail", .max_attempts = 2, .retry_delay_seconds = 0.3});
  Worker w(url_, r, {.concurrency = 2, .exit_when_idle = true});
  w.run();  // returns once idle
  EXPECT_EQ(q.get(flaky)->status, TaskStatus::succeeded);
  const Task f = *q.get(fail);
  EXPECT_EQ(f.status, TaskStatus::failed) << "the worker left with a retry scheduled";
  EXPECT_EQ(f.attempts, 2);
}

#ifdef STRATA_CLI_PATH

// Runs the CLI with `args`; its output, and its exit status in `status`.
std::string run_cli(const std::string& args, int& status) {
  std::string out;
  FILE* pipe = ::popen((std::string("'") + STRATA_CLI_PATH + "' " + args + " 2>&1").c_str(), "r");
  if (!pipe) return out;
  char buf[4096];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, pipe)) > 0;) out.append(buf, n);
  const int raw = ::pclose(pipe);
  status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  return out;
}

// The issue's case: `fail` with max_attempts 2 used to stay pending after `strata worker
// --exit-when-idle` had gone; then `strata plan retry` runs it (and its dependent) again.
TEST_P(RetryTest, CliWorkerStaysForTheRetryThenPlanRetryRequeues) {
  auto hub = open();
  Queue q(hub);
  Plan plan("cli");
  const int64_t first = plan.add({.kind = "fail", .params = R"({"message": "no"})", .max_attempts = 2,
                                  .retry_delay_seconds = 0.3});
  plan.add({.kind = "noop", .after = {first}});
  const PlanProgress p = q.submit(plan);
  int status = -1;
  const std::string hub_arg = " --hub '" + url_ + "'";
  std::string out = run_cli("worker --exit-when-idle --id cli" + hub_arg, status);
  EXPECT_EQ(status, 0) << out;
  EXPECT_EQ(q.get(p.task_ids[0])->status, TaskStatus::failed) << out;
  EXPECT_EQ(q.get(p.task_ids[0])->attempts, 2) << out;
  EXPECT_EQ(q.get(p.task_ids[1])->status, TaskStatus::cancelled);

  out = run_cli("plan" + hub_arg + " --json retry " + std::to_string(p.plan_id), status);
  ASSERT_EQ(status, 0) << out;
  EXPECT_EQ(json::parse(out)["requeued"], json(p.task_ids));
  EXPECT_EQ(q.plan_progress(p.plan_id).count(TaskStatus::pending), 2);
  out = run_cli("plan" + hub_arg + " retry " + std::to_string(p.plan_id) + " " + std::to_string(p.task_ids[1]), status);
  EXPECT_NE(status, 0);
  EXPECT_NE(out.find("is pending, not failed"), std::string::npos) << out;

  // (plan clean --older-than reads its duration here too: the plan is unfinished, so it stays.)
  out = run_cli("plan" + hub_arg + " clean --older-than 3x", status);
  EXPECT_NE(status, 0);
  EXPECT_NE(out.find("--older-than \"3x\" is not a duration"), std::string::npos) << out;
  out = run_cli("plan" + hub_arg + " clean --older-than 1d", status);
  EXPECT_EQ(status, 0) << out;
  EXPECT_NE(out.find("0 finished plans removed"), std::string::npos) << out;
}

#endif

}  // namespace
}  // namespace strata::workflow
