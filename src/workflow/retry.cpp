// Replay of tasks that failed for good (`strata plan retry`), as the TensorLayer paper has it:
// the user re-queues a failed task with the dependents its failure cancelled, and the earlier
// run is kept in task_runs rather than overwritten.
#include <map>
#include <set>

#include "strata/workflow/queue.hpp"
#include "task_rows.hpp"

namespace strata::workflow {

using hub::unix_now;
using namespace detail;

namespace {

// The failed tasks to re-queue: the named ones (each must be in the plan and failed), or every
// failed task of the plan.
std::vector<int64_t> failed_roots(Database& db, int64_t plan_id, const std::vector<int64_t>& named) {
  std::vector<int64_t> roots;
  if (named.empty()) {
    db.query("SELECT id FROM tasks WHERE plan_id = ? AND status = 'failed' ORDER BY id", {plan_id},
             [&](const Row& r) { roots.push_back(r.integer(0)); });
    return roots;
  }
  for (int64_t id : named) {
    std::optional<std::string> status;
    db.query("SELECT status FROM tasks WHERE id = ? AND plan_id = ?", {id, plan_id},
             [&](const Row& r) { status = r.text(0); });
    STRATA_CHECK(status, "Queue::retry: there is no task ", std::to_string(id), " in plan ", std::to_string(plan_id));
    STRATA_CHECK(*status == "failed", "Queue::retry: task ", std::to_string(id), " is ", *status,
                 ", not failed: only a task that failed for good can be retried");
    roots.push_back(id);
  }
  return roots;
}

// The roots and every task downstream of them that a dependency's failure or cancellation
// cancelled (their error starts "dependency ", as cancel_dependents and submit write it), less
// those that also wait on a failed or cancelled task left out.
std::set<int64_t> tasks_to_requeue(Database& db, const std::vector<int64_t>& roots) {
  std::set<int64_t> chosen(roots.begin(), roots.end());
  std::vector<int64_t> frontier = roots;
  while (!frontier.empty()) {
    const int64_t id = frontier.back();
    frontier.pop_back();
    db.query("SELECT t.id FROM task_deps d JOIN tasks t ON t.id = d.task_id WHERE d.depends_on = ? "
             "AND t.status = 'cancelled' AND t.error LIKE 'dependency %'",
             {id}, [&](const Row& r) {
               if (chosen.insert(r.integer(0)).second) frontier.push_back(r.integer(0));
             });
  }
  // A dependent stays out when one of its dead (failed or cancelled) dependencies is not
  // re-queued; leaving it out leaves out its own dependents in turn, through a work list (each
  // task is dropped once, so this is linear in the links).
  std::map<int64_t, std::vector<int64_t>> dead_dependents;  // a dead task -> chosen tasks waiting on it
  std::vector<int64_t> dropped;
  const std::set<int64_t> root_set(roots.begin(), roots.end());
  for (int64_t id : chosen) {
    if (root_set.count(id)) continue;
    db.query("SELECT d.depends_on FROM task_deps d JOIN tasks u ON u.id = d.depends_on WHERE d.task_id = ? "
             "AND u.status IN ('failed', 'cancelled')",
             {id}, [&](const Row& r) {
               const int64_t dep = r.integer(0);
               dead_dependents[dep].push_back(id);
               if (!chosen.count(dep)) dropped.push_back(id);
             });
  }
  while (!dropped.empty()) {
    const int64_t id = dropped.back();
    dropped.pop_back();
    if (!chosen.erase(id)) continue;
    if (auto it = dead_dependents.find(id); it != dead_dependents.end())
      dropped.insert(dropped.end(), it->second.begin(), it->second.end());
  }
  return chosen;
}

}  // namespace

std::vector<int64_t> Queue::retry(int64_t plan_id, const std::vector<int64_t>& task_ids) {
  auto session = connection_.lock();
  Database& db = session.db();
  std::vector<int64_t> requeued;
  db.transaction(true, [&] {
    requeued.clear();
    // Each re-queued task counts its dependencies that have not succeeded; one that succeeds
    // meanwhile must not be counted after its release was applied to the old row. SQLite's
    // write transaction excludes other writers already; on PostgreSQL this lock waits for the
    // writers in flight and holds new ones off until the commit (a retry is rare and short).
    if (db.dialect() == hub::Dialect::postgres) db.execute("LOCK TABLE tasks IN SHARE ROW EXCLUSIVE MODE");
    STRATA_CHECK(read_plan_progress(db, session.project_id(false), plan_id), "Queue::retry: there is no plan ",
                 std::to_string(plan_id), " in project \"", session.project(), "\"");
    const std::set<int64_t> chosen = tasks_to_requeue(db, failed_roots(db, plan_id, task_ids));
    const double now = unix_now();
    for (int64_t id : chosen) {
      // The new run gets the attempts the last one had: its limit less the attempts used before it.
      const int64_t used_before = db.query_int("SELECT MAX(attempts) FROM task_runs WHERE task_id = ?", {id}).value_or(0);
      db.execute("INSERT INTO task_runs (task_id, attempts, status, worker, error, log_tail, max_attempts, leased_at, "
                 "started_at, finished_at, retried_at) SELECT id, attempts, status, worker, error, log_tail, "
                 "max_attempts, leased_at, started_at, finished_at, ? FROM tasks WHERE id = ?",
                 {now, id});
      db.execute("UPDATE tasks SET status = 'pending', max_attempts = attempts + max_attempts - ?, not_before = ?, "
                 "waiting = (SELECT COUNT(*) FROM task_deps d JOIN tasks u ON u.id = d.depends_on "
                 "WHERE d.task_id = tasks.id AND u.status <> 'succeeded'), worker = '', error = '', log_tail = '', "
                 "result = NULL, lease_expires_at = NULL, leased_at = NULL, started_at = NULL, finished_at = NULL "
                 "WHERE id = ?",
                 {used_before, now, id});
      requeued.push_back(id);
    }
    if (!requeued.empty()) db.notify(kWorkChannel);
  });
  return requeued;
}

std::vector<TaskRun> Queue::history(int64_t task_id) {
  auto session = connection_.lock();
  std::vector<TaskRun> runs;
  session.db().query(
      "SELECT attempts, max_attempts, status, worker, error, log_tail, leased_at, started_at, finished_at, retried_at "
      "FROM task_runs WHERE task_id = ? ORDER BY attempts, retried_at",
      {task_id}, [&](const Row& r) {
        runs.push_back({.attempts = r.integer(0), .max_attempts = r.integer(1), .status = parse_task_status(r.text(2)),
                        .worker = r.text(3), .error = r.text(4), .log_tail = r.text(5), .leased_at = optional_real(r, 6),
                        .started_at = optional_real(r, 7), .finished_at = optional_real(r, 8),
                        .retried_at = r.real(9)});
      });
  return runs;
}

}  // namespace strata::workflow
