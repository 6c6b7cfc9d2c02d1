// Old finished tasks: they must not slow leasing (the lease statement reads an index, never
// every task: checked with EXPLAIN over 5,000 finished tasks), and `plan clean --older-than`
// removes finished plans by age.
#include <gtest/gtest.h>

#include <sstream>

#include "hub/hub_fixture.hpp"
#include "strata/hub/shared_connection.hpp"
#include "strata/workflow/queue.hpp"
#include "workflow/task_rows.hpp"

namespace strata::workflow {
namespace {

using hub::Database;
using hub::Dialect;
using hub::Params;
using hub::SharedConnection;
using hub::testing::HubTest;

using FinishedTasks = HubTest;
INSTANTIATE_TEST_SUITE_P(Backends, FinishedTasks, ::testing::Values("sqlite", "postgres"),
                         [](const ::testing::TestParamInfo<std::string>& p) { return p.param; });

TEST_P(FinishedTasks, LeasingReadsAnIndexNotTheFinishedTasks) {
  {
    auto hub = open();
    Queue q(hub);
    q.submit({.kind = "noop"});  // creates the project (id 1) and one pending task
  }
  auto setup = open();
  auto session = SharedConnection(setup).lock();
  Database& db = session.db();
  // 5,000 finished tasks, inserted by SQL, and fresh statistics for the planner.
  db.execute(
      "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 5000) "
      "INSERT INTO tasks (project_id, name, kind, params, input_dataset, model, output_dataset, priority, tags, "
      "status, "
      "waiting, attempts, max_attempts, retry_delay, not_before, worker, result, error, log_tail, created_at, "
      "finished_at) "
      "SELECT 1, 'old', 'noop', '{}', '', '', '', 0, '', 'succeeded', 0, 1, 3, 0.5, 0, 'w', '{}', '', '', 1, 2 FROM n");
  db.execute("ANALYZE");
  const Dialect dialect = db.dialect();
  const std::string sql = detail::lease_sql(dialect, 1, 1, true);
  const Params params{std::string_view("w"), 100.0, 1.0, 1.0, int64_t{1}, 1.0, std::string_view("noop"),
                      std::string_view("cpu"), int64_t{4}};
  std::string plan;
  db.query(std::string(dialect == Dialect::postgres ? "EXPLAIN " : "EXPLAIN QUERY PLAN ") + sql, params,
           [&](const hub::Row& r) { plan += r.text(dialect == Dialect::postgres ? 0 : 3) + "\n"; });
  if (dialect == Dialect::postgres) {
    EXPECT_EQ(plan.find("Seq Scan on tasks"), std::string::npos) << plan;
    // tasks_ready or tasks_by_lease: both start with the status, so only pending rows are read.
    bool pending_by_index = false;
    std::istringstream lines(plan);
    for (std::string l; std::getline(lines, l);)
      pending_by_index |= l.find("Index Cond:") != std::string::npos && l.find("status = 'pending'") != std::string::npos;
    EXPECT_TRUE(pending_by_index) << plan;
  } else {
    EXPECT_EQ(plan.find("SCAN t\n"), std::string::npos) << plan;
    EXPECT_EQ(plan.find("SCAN tasks\n"), std::string::npos) << plan;
    EXPECT_NE(plan.find("USING INDEX tasks_ready"), std::string::npos) << plan;
  }
  auto hub = open();
  Queue q(hub);
  EXPECT_EQ(q.lease_and_start("w", {"noop"}, {}, 10, 4).size(), 1u) << "the one pending task";
}

TEST_P(FinishedTasks, CleanOlderThanRemovesOnlyPlansFinishedLongEnoughAgo) {
  auto hub = open();
  Queue q(hub);
  Plan plan("p");
  plan.add({.kind = "k"});
  const PlanProgress old_plan = q.submit(plan), recent = q.submit(plan), running = q.submit(plan);
  for (int i = 0; i < 2; ++i) ASSERT_TRUE(q.complete(*q.lease("w", {"k"}, {}, 10), "{}"));
  ASSERT_TRUE(q.lease("w", {"k"}, {}, 10));  // the third plan's task stays running
  // The first plan finished a day ago.
  SharedConnection(hub).lock().db().execute("UPDATE tasks SET finished_at = finished_at - 86400 WHERE plan_id = ?",
                                            {old_plan.plan_id});
  const auto removed = q.clean_finished_plans(3600.0);
  ASSERT_EQ(removed.size(), 1u);
  EXPECT_EQ(removed[0].removed.plan_id, old_plan.plan_id);
  EXPECT_EQ(q.clean_finished_plans(3600.0).size(), 0u);
  EXPECT_EQ(q.plan_progress(recent.plan_id).total(), 1);
  const auto rest = q.clean_finished_plans();
  ASSERT_EQ(rest.size(), 1u) << "without an age: every finished plan";
  EXPECT_EQ(rest[0].removed.plan_id, recent.plan_id);
  EXPECT_EQ(q.plan_progress(running.plan_id).total(), 1);
}

}  // namespace
}  // namespace strata::workflow
