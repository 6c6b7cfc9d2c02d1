// Removing finished plans from the queue (`strata plan clean`): never silently, never a plan
// still running unless forced, and always saying what went.
#include "strata/workflow/queue.hpp"
#include "task_rows.hpp"

namespace strata::workflow {

using hub::unix_now;
using namespace detail;

namespace {

constexpr const char* kPlanTasks = "(SELECT id FROM tasks WHERE plan_id = ?)";

}  // namespace

PlanCleanup Queue::clean_plan(int64_t plan_id, bool force) {
  auto session = connection_.lock();
  Database& db = session.db();
  PlanCleanup out;
  db.transaction(true, [&] {
    const std::optional<PlanProgress> p = read_plan_progress(db, session.project_id(false), plan_id);
    STRATA_CHECK(p.has_value(), "Queue::clean_plan: there is no plan ", std::to_string(plan_id), " in project \"",
                 session.project(), "\"");
    out = {.removed = *p};
    const int64_t unfinished = p->total() - p->finished();
    STRATA_CHECK(force || unfinished == 0, "Queue::clean_plan: ", p->summary(), ": ", std::to_string(unfinished),
                 " tasks have not finished; cancel the plan first (strata plan cancel) or force the clean");
    if (unfinished > 0) {
      const double now = unix_now();
      const std::string reason = "plan " + std::to_string(plan_id) + " was cleaned before it finished";
      std::vector<int64_t> cancelled;
      db.query("UPDATE tasks SET status = 'cancelled', error = ?, finished_at = ?, lease_expires_at = NULL "
               "WHERE plan_id = ? AND status IN ('pending', 'leased', 'running') RETURNING id",
               {std::string_view(reason), now, plan_id}, [&](const Row& r) { cancelled.push_back(r.integer(0)); });
      for (int64_t id : cancelled) cancel_dependents(db, id, reason, now);
    }
    const std::string outside = std::string("DELETE FROM task_deps WHERE depends_on IN ") + kPlanTasks +
                                " AND task_id NOT IN " + kPlanTasks + " RETURNING task_id";
    db.query(outside, {plan_id, plan_id}, [&](const Row&) { ++out.outside_links; });
    db.execute(std::string("DELETE FROM task_deps WHERE task_id IN ") + kPlanTasks, {plan_id});
    db.execute(std::string("DELETE FROM task_tags WHERE task_id IN ") + kPlanTasks, {plan_id});
    db.execute(std::string("DELETE FROM task_runs WHERE task_id IN ") + kPlanTasks, {plan_id});
    db.execute("DELETE FROM tasks WHERE plan_id = ?", {plan_id});
    db.execute("DELETE FROM plans WHERE id = ?", {plan_id});
  });
  return out;
}

std::vector<PlanCleanup> Queue::clean_finished_plans(std::optional<double> older_than_seconds) {
  STRATA_CHECK(!older_than_seconds || *older_than_seconds >= 0, "Queue::clean_finished_plans: the age must not be negative");
  std::vector<int64_t> finished;
  {
    auto session = connection_.lock();
    Database& db = session.db();
    const auto project = session.project_id(false);
    if (!project) return {};
    // A plan's age is that of its last task to finish (of the plan's row when it has none).
    const double cutoff = older_than_seconds ? unix_now() - *older_than_seconds : 1e300;
    db.transaction(false, [&] {
      finished.clear();
      db.query("SELECT id FROM plans p WHERE project_id = ? AND NOT EXISTS (SELECT 1 FROM tasks t WHERE "
               "t.plan_id = p.id AND t.status IN ('pending', 'leased', 'running')) AND COALESCE((SELECT "
               "MAX(t.finished_at) FROM tasks t WHERE t.plan_id = p.id), p.created_at) < ? ORDER BY id",
               {*project, cutoff}, [&](const Row& r) { finished.push_back(r.integer(0)); });
    });
  }
  std::vector<PlanCleanup> out;
  // Each in its own transaction, so a long list does not hold the write lock throughout.
  for (int64_t id : finished) out.push_back(clean_plan(id));
  return out;
}

}  // namespace strata::workflow
