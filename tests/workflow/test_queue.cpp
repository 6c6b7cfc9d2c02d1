// The queue's contract, in process, on SQLite and PostgreSQL: fencing (a stale attempt never
// commits), dependencies, priorities, tags and kinds, retries with back-off, failure cascades,
// cancellation, and plans.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <thread>

#include <nlohmann/json.hpp>

#include "support/expect_error.hpp"
#include "hub/hub_fixture.hpp"
#include "strata/workflow/queue.hpp"

namespace strata::workflow {
namespace {

using hub::testing::HubTest;
using strata::testing::expect_error;

using QueueTest = HubTest;
INSTANTIATE_TEST_SUITE_P(Backends, QueueTest, ::testing::Values("sqlite", "postgres"),
                         [](const ::testing::TestParamInfo<std::string>& p) { return p.param; });

const std::vector<std::string> kKinds = {"noop", "train"};

TEST_P(QueueTest, LeaseIsFencedByTheAttempt) {
  auto hub = open();
  Queue q(hub);
  const int64_t id = q.submit({.kind = "noop", .params = R"({"x": 1})", .name = "one"});
  auto a = q.lease("A", kKinds, {}, 0.05);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->task.id, id);
  EXPECT_EQ(a->attempt, 1);
  EXPECT_EQ(a->task.params, R"({"x": 1})");
  EXPECT_EQ(a->task.status, TaskStatus::leased);
  EXPECT_FALSE(q.lease("B", kKinds, {}, 10)) << "a leased task is not leased twice";
  EXPECT_TRUE(q.start(*a));
  EXPECT_EQ(q.get(id)->status, TaskStatus::running);

  std::this_thread::sleep_for(std::chrono::milliseconds(80));  // A's lease expires
  EXPECT_EQ(q.reclaim_expired(), 1);
  const auto replayed = q.get(id);
  EXPECT_EQ(replayed->status, TaskStatus::pending);
  EXPECT_NE(replayed->error.find("lease of worker A expired"), std::string::npos) << replayed->error;
  auto b = q.lease("B", kKinds, {}, 10);
  ASSERT_TRUE(b);
  EXPECT_EQ(b->attempt, 2);

  EXPECT_FALSE(q.heartbeat(*a, 10)) << "A lost its lease";
  EXPECT_FALSE(q.complete(*a, R"({"by": "A"})")) << "A's stale result must be refused";
  EXPECT_EQ(q.fail(*a, "late"), FailOutcome::refused);
  EXPECT_TRUE(q.heartbeat(*b, 10));
  EXPECT_TRUE(q.complete(*b, R"({"by": "B"})", "log\n"));
  EXPECT_FALSE(q.complete(*b, R"({"by": "B again"})")) << "a result commits once";
  const auto done = q.get(id);
  EXPECT_EQ(done->status, TaskStatus::succeeded);
  EXPECT_EQ(*done->result, R"({"by": "B"})");
  EXPECT_EQ(done->worker, "B");
  EXPECT_EQ(done->attempts, 2);
  EXPECT_EQ(done->log_tail, "log\n");
  EXPECT_TRUE(done->finished_at && done->leased_at && *done->finished_at >= *done->leased_at);
}

// A worker with N free slots leases up to N tasks in one statement, already running; each is
// fenced like a single lease, and its commit stores when its function really started.
TEST_P(QueueTest, BatchedLeasesStartAtOnceAndStayFenced) {
  auto hub = open();
  Queue q(hub);
  std::vector<int64_t> ids;
  for (int i = 0; i < 5; ++i) ids.push_back(q.submit({.kind = "noop", .priority = i == 3 ? 1 : 0}));
  const int64_t child = q.submit({.kind = "noop", .after = {ids[0]}});
  auto batch = q.lease_and_start("W", kKinds, {}, 10, 3);
  ASSERT_EQ(batch.size(), 3u);
  EXPECT_EQ(batch[0].task.id, ids[3]) << "the highest priority first";
  EXPECT_EQ(batch[1].task.id, ids[0]);
  EXPECT_EQ(batch[2].task.id, ids[1]);
  for (const auto& l : batch) {
    EXPECT_EQ(l.task.status, TaskStatus::running);
    EXPECT_EQ(l.attempt, 1);
    EXPECT_EQ(l.worker, "W");
    EXPECT_TRUE(l.task.started_at && l.task.leased_at && *l.task.started_at >= *l.task.leased_at);
  }
  EXPECT_FALSE(q.start(batch[0])) << "already running";
  const auto rest = q.lease_and_start("V", kKinds, {}, 10, 3);
  ASSERT_EQ(rest.size(), 2u) << "the child waits for its dependency";
  EXPECT_TRUE(q.lease_and_start("V", kKinds, {}, 10, 3).empty());
  expect_error([&] { q.lease_and_start("V", kKinds, {}, 10, 0); }, {"max_tasks must be at least 1"});

  Lease stale = batch[1];
  stale.worker = "V";
  EXPECT_FALSE(q.complete(stale, "{}")) << "another worker's lease is refused";
  batch[1].started_at = *batch[1].task.leased_at + 0.25;
  // The commit of a result may lease the worker's next task: here the dependent it releases.
  NextLeases next{.kinds = kKinds, .lease_seconds = 10};
  ASSERT_TRUE(q.complete(batch[1], R"({"ok": true})", "", nullptr, &next));
  ASSERT_EQ(next.leased.size(), 1u) << "completing released the child, leased in the same commit";
  EXPECT_EQ(next.leased[0].task.id, child);
  EXPECT_EQ(next.leased[0].worker, "W");
  EXPECT_EQ(next.leased[0].task.status, TaskStatus::running);
  EXPECT_FALSE(q.complete(batch[1], "{}", "", nullptr, &next)) << "a result commits once";
  EXPECT_TRUE(next.leased.empty()) << "nothing else is ready";
  const Task done = *q.get(ids[0]);
  EXPECT_EQ(done.status, TaskStatus::succeeded);
  EXPECT_EQ(*done.result, R"({"ok": true})");
  EXPECT_NEAR(*done.started_at - *done.leased_at, 0.25, 1e-6);
  EXPECT_TRUE(q.complete(rest[0], "{}")) << "the other worker's lease is its own";
}

TEST_P(QueueTest, DependenciesPrioritiesTagsAndKinds) {
  auto hub = open();
  Queue q(hub);
  const int64_t first = q.submit({.kind = "train", .name = "first"});
  const int64_t low = q.submit({.kind = "noop", .name = "low", .priority = -1});
  const int64_t after = q.submit({.kind = "noop", .name = "after", .after = {first}, .priority = 5});
  const int64_t gpu = q.submit({.kind = "noop", .name = "gpu", .priority = 9, .tags = {"gpu"}});
  const int64_t other = q.submit({.kind = "evaluate", .name = "other kind", .priority = 9});
  EXPECT_EQ(q.get(after)->depends_on, std::vector<int64_t>{first});

  // No gpu tag, no "evaluate" kind: "first" (priority 0) before "low" (-1); "after" waits.
  auto l1 = q.lease("cpu", kKinds, {"cpu"}, 10);
  ASSERT_TRUE(l1);
  EXPECT_EQ(l1->task.id, first);
  auto l2 = q.lease("cpu", kKinds, {"cpu"}, 10);
  ASSERT_TRUE(l2);
  EXPECT_EQ(l2->task.id, low);
  EXPECT_FALSE(q.lease("cpu", kKinds, {"cpu"}, 10)) << "\"after\" must wait for \"first\"";
  ASSERT_TRUE(q.complete(*l1, "{}"));
  auto l3 = q.lease("cpu", kKinds, {"cpu"}, 10);
  ASSERT_TRUE(l3);
  EXPECT_EQ(l3->task.id, after);
  auto l4 = q.lease("gpu-box", kKinds, {"cpu", "gpu"}, 10);
  ASSERT_TRUE(l4);
  EXPECT_EQ(l4->task.id, gpu);
  EXPECT_EQ(l4->task.tags, std::vector<std::string>{"gpu"});
  EXPECT_FALSE(q.lease("gpu-box", kKinds, {"cpu", "gpu"}, 10)) << "kind \"evaluate\" is not offered";
  EXPECT_EQ(q.lease("eval", {"evaluate"}, {}, 10)->task.id, other);
}

TEST_P(QueueTest, RetriesBackOffThenFailureCancelsDependents) {
  auto hub = open();
  Queue q(hub);
  const int64_t root = q.submit({.kind = "noop", .name = "root", .max_attempts = 2, .retry_delay_seconds = 0.2});
  const int64_t child = q.submit({.kind = "noop", .name = "child", .after = {root}});
  const int64_t grandchild = q.submit({.kind = "noop", .name = "grandchild", .after = {child}});
  const int64_t unrelated = q.submit({.kind = "noop", .name = "unrelated"});

  auto a1 = q.lease("w", kKinds, {}, 10);
  ASSERT_EQ(a1->task.id, root);
  EXPECT_EQ(q.fail(*a1, "boom 1", "tail 1"), FailOutcome::retrying);
  EXPECT_EQ(q.get(root)->error, "boom 1");
  // Backing off: the next leasable task is the unrelated one, not the root again.
  auto u = q.lease("w", kKinds, {}, 10);
  EXPECT_EQ(u->task.id, unrelated);
  EXPECT_FALSE(q.lease("w", kKinds, {}, 10));
  std::this_thread::sleep_for(std::chrono::milliseconds(250));
  auto a2 = q.lease("w", kKinds, {}, 10);
  ASSERT_TRUE(a2);
  EXPECT_EQ(a2->task.id, root);
  EXPECT_EQ(a2->attempt, 2);
  EXPECT_EQ(q.fail(*a2, "boom 2", "tail 2"), FailOutcome::failed) << "max_attempts is 2";

  const auto failed = q.get(root);
  EXPECT_EQ(failed->status, TaskStatus::failed);
  EXPECT_EQ(failed->error, "boom 2");
  EXPECT_EQ(failed->log_tail, "tail 2");
  for (int64_t id : {child, grandchild}) {
    const auto t = q.get(id);
    EXPECT_EQ(t->status, TaskStatus::cancelled) << t->name;
    EXPECT_NE(t->error.find("failed: boom 2"), std::string::npos) << t->error;
  }
  EXPECT_FALSE(q.lease("w", kKinds, {}, 10));
  // A task submitted after its dependency failed is cancelled at once.
  const int64_t late = q.submit({.kind = "noop", .after = {root}});
  EXPECT_EQ(q.get(late)->status, TaskStatus::cancelled);
  EXPECT_TRUE(q.complete(*u, "{}"));
}

TEST_P(QueueTest, CancelRunningTaskRefusesItsResult) {
  auto hub = open();
  Queue q(hub);
  const int64_t id = q.submit({.kind = "noop"});
  const int64_t next = q.submit({.kind = "noop", .after = {id}});
  auto l = q.lease("w", kKinds, {}, 10);
  ASSERT_TRUE(q.start(*l));
  EXPECT_TRUE(q.cancel(id, "changed my mind"));
  EXPECT_FALSE(q.cancel(id)) << "already finished";
  EXPECT_FALSE(q.heartbeat(*l, 10));
  EXPECT_FALSE(q.complete(*l, "{}"));
  EXPECT_EQ(q.get(id)->error, "changed my mind");
  EXPECT_EQ(q.get(next)->status, TaskStatus::cancelled);
  EXPECT_FALSE(q.get(9999));
  expect_error([&] { q.submit({.kind = "noop", .after = {9999}}); }, {"depends on task 9999", "not in this project"});
  expect_error([&] { q.submit({.kind = "noop", .params = "[1]"}); }, {"params must be a JSON object", "[1]"});
  expect_error([&] { q.submit({.kind = "", .params = "{}"}); }, {"no kind"});
}

TEST_P(QueueTest, PlanRunsAsADagAndReportsProgress) {
  auto hub = open();
  Queue q(hub);
  Plan p("captioning");
  const int64_t cnn = p.add({.kind = "train", .params = R"({"layers": 2})", .name = "cnn"});
  const int64_t rnn = p.add({.kind = "train", .name = "rnn", .after = {cnn}});
  p.add({.kind = "noop", .name = "evaluate", .after = {cnn, rnn}});
  expect_error([&] { p.add({.kind = "noop", .after = {7}}); }, {"runs after task 7", "0..2"});

  const PlanProgress submitted = q.submit(p);
  ASSERT_EQ(submitted.task_ids.size(), 3u);
  EXPECT_EQ(submitted.count(TaskStatus::pending), 3);
  EXPECT_EQ(q.get(submitted.task_ids[2])->depends_on, (std::vector<int64_t>{submitted.task_ids[0], submitted.task_ids[1]}));
  EXPECT_EQ(*q.get(submitted.task_ids[0])->plan_id, submitted.plan_id);

  auto l = q.lease("w", kKinds, {}, 10);
  ASSERT_EQ(l->task.name, "cnn");
  ASSERT_TRUE(q.complete(*l, "{}"));
  auto progress = q.plan_progress(submitted.plan_id);
  EXPECT_EQ(progress.name, "captioning");
  EXPECT_EQ(progress.count(TaskStatus::succeeded), 1);
  EXPECT_EQ(progress.count(TaskStatus::pending), 2);
  EXPECT_FALSE(progress.done());
  EXPECT_EQ(progress.summary(), "plan " + std::to_string(submitted.plan_id) + " (captioning): 1/3 finished: 1 succeeded; 2 pending");

  EXPECT_EQ(q.cancel_plan(submitted.plan_id), 2);
  progress = q.wait_plan(submitted.plan_id, std::chrono::seconds(1));
  EXPECT_TRUE(progress.done());
  EXPECT_FALSE(progress.all_succeeded());
  EXPECT_EQ(progress.count(TaskStatus::cancelled), 2);
  expect_error([&] { q.plan_progress(12345); }, {"no plan 12345"});
}

// A plan is inserted a few hundred rows per statement: 1,337 tasks cross full statements and
// the power-of-two remainders. Each task keeps its own fields, dependencies (a duplicate is waited
// for once) and tags (duplicates dropped), and runs only after its dependencies.
TEST_P(QueueTest, ALargePlanKeepsEveryTasksFieldsDependenciesAndTags) {
  auto hub = open();
  Queue q(hub);
  constexpr int64_t n = 1337;
  Plan p("large");
  for (int64_t i = 0; i < n; ++i) {
    TaskSpec t{.kind = i % 2 ? "train" : "noop", .params = R"({"i": )" + std::to_string(i) + "}",
               .name = "t" + std::to_string(i), .priority = i % 5, .tags = {"g" + std::to_string(i % 3), "all", "all"}};
    if (i > 0) t.after = {i - 1, i / 2, i - 1};
    p.add(std::move(t));
  }
  const PlanProgress submitted = q.submit(p);
  ASSERT_EQ(submitted.task_ids.size(), static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    const Task t = *q.get(submitted.task_ids[i]);
    ASSERT_EQ(t.name, "t" + std::to_string(i));
    ASSERT_EQ(t.params, R"({"i": )" + std::to_string(i) + "}");
    ASSERT_EQ(t.priority, i % 5);
    ASSERT_EQ(t.tags, (std::vector<std::string>{"all", "g" + std::to_string(i % 3)}));
    std::vector<int64_t> deps;
    if (i > 0) deps = {submitted.task_ids[i / 2]};
    if (i > 0 && i - 1 != i / 2) deps.push_back(submitted.task_ids[i - 1]);
    std::sort(deps.begin(), deps.end());
    ASSERT_EQ(t.depends_on, deps) << "task " << i;
  }
  // Leased in order, one at a time: each waits for the one before it (and t1 and t2 for t0,
  // named twice), so none becomes ready before its dependency succeeds.
  const std::vector<std::string> tags = {"all", "g0", "g1", "g2"};  // a worker leases tasks whose tags it has
  for (int64_t i = 0; i < 4; ++i) {
    auto l = q.lease("w", kKinds, tags, 10);
    ASSERT_TRUE(l);
    EXPECT_EQ(l->task.name, "t" + std::to_string(i));
    EXPECT_FALSE(q.lease("w2", kKinds, tags, 10)) << "only t" << i << " is ready";
    ASSERT_TRUE(q.complete(*l, "{}"));
  }
}

TEST(PlanJson, ReadsTasksInAnyOrderAndChecksThem) {
  const Plan p = Plan::from_json(R"({"name": "two stage", "tasks": [
      {"name": "rnn", "kind": "train", "after": ["cnn"], "params": {"units": 128}, "tags": ["gpu"]},
      {"name": "cnn", "kind": "train", "priority": 2, "max_attempts": 5, "model": "cnn", "input_dataset": "images"}]})");
  EXPECT_EQ(p.name(), "two stage");
  ASSERT_EQ(p.tasks().size(), 2u);
  EXPECT_EQ(p.tasks()[0].name, "cnn");  // added first: "rnn" runs after it
  EXPECT_EQ(p.tasks()[0].priority, 2);
  EXPECT_EQ(p.tasks()[0].max_attempts, 5);
  EXPECT_EQ(p.tasks()[0].input_dataset, "images");
  EXPECT_EQ(p.tasks()[1].after, std::vector<int64_t>{0});
  EXPECT_EQ(nlohmann::json::parse(p.tasks()[1].params)["units"], 128);
  EXPECT_EQ(p.tasks()[1].tags, std::vector<std::string>{"gpu"});

  expect_error([] { Plan::from_json(R"({"tasks": [{"name": "a", "kind": "k", "after": ["b"]}]})"); },
               {"task \"a\" runs after \"b\"", "not a task of the plan"});
  expect_error([] { Plan::from_json(R"({"tasks": [{"name": "a", "kind": "k", "after": ["b"]},
                                                  {"name": "b", "kind": "k", "after": ["a"]}]})"); },
               {"cycle"});
  expect_error([] { Plan::from_json(R"({"tasks": [{"name": "a", "kind": "k", "retries": 3}]})"); },
               {"task \"a\"", "unknown field \"retries\""});
  expect_error([] { Plan::from_json(R"({"tasks": [{"name": "a", "kind": "k"}, {"name": "a", "kind": "k"}]})"); },
               {"two tasks are named \"a\""});
  expect_error([] { Plan::from_json(R"({"tasks": [{"name": "a"}]})"); }, {"task \"a\" has no \"kind\""});
  expect_error([] { Plan::from_json("{not json"); }, {"not valid JSON"});
  // A number past double's range is nlohmann's out_of_range, not a parse_error (found by fuzzing).
  expect_error([] { Plan::from_json(R"({"tasks": [], "x": 66666e666})"); }, {"not valid JSON", "number overflow"});
}

// An idle worker's wait: on PostgreSQL a submission, or a completion that releases a dependent,
// wakes it (NOTIFY) long before its timeout; SQLite has no notifications and returns at once.
TEST_P(QueueTest, IdleWaitWakesWhenWorkArrives) {
  auto hub = open();
  Queue waiter(hub);
  using Clock = std::chrono::steady_clock;
  const auto seconds_since = [](Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); };
  if (!postgres()) {
    const auto t0 = Clock::now();
    EXPECT_FALSE(waiter.wait_for_work(60));
    EXPECT_LT(seconds_since(t0), 30.0) << "waited for its timeout instead of returning";
    return;
  }
  auto other = open();
  Queue submitter(other);
  EXPECT_TRUE(waiter.wait_for_work(0));  // listening from here on
  const auto wakes_within_timeout = [&](const std::function<void()>& cause) {
    std::thread later([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      cause();
    });
    const auto t0 = Clock::now();
    EXPECT_TRUE(waiter.wait_for_work(60));
    // Woken by the notification (about 0.2 s), not by its 60 s timeout; the margin is for load.
    EXPECT_LT(seconds_since(t0), 30.0) << "woke by its timeout, not by a notification";
    later.join();
  };
  Plan plan("chain");
  const int64_t first = plan.add({.kind = "noop", .name = "first"});
  plan.add({.kind = "noop", .name = "second", .after = {first}});
  wakes_within_timeout([&] { submitter.submit(plan); });
  auto lease = submitter.lease("W", kKinds, {}, 10);
  ASSERT_TRUE(lease);
  ASSERT_TRUE(submitter.start(*lease));
  wakes_within_timeout([&] { EXPECT_TRUE(submitter.complete(*lease, "{}")); });  // releases "second"
  auto next = waiter.lease("W", kKinds, {}, 10);
  ASSERT_TRUE(next);
  EXPECT_EQ(next->task.name, "second");
}

}  // namespace
}  // namespace strata::workflow
