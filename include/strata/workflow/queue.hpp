// Queue: the workflow's persistent task queue, stored in a hub's database (SQLite or
// PostgreSQL) and shared by every process that opens the same hub and project.
//
// Leases are fenced: each lease raises the task's attempt number, and heartbeat, complete and
// fail succeed only for the attempt that currently holds the task, so a worker whose lease was
// taken away (paused, cut off, then back) cannot commit: each task's result commits once.
// A Queue shares its Hub's connection (hub::SharedConnection: calls are serialised with the
// hub's own).
#pragma once
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "strata/hub/hub.hpp"
#include "strata/hub/shared_connection.hpp"
#include "strata/workflow/plan.hpp"
#include "strata/workflow/task.hpp"
#include "strata/workflow/task_outputs.hpp"

namespace strata::workflow {

// One attempt at a task, held by a worker until `expires_at` unless renewed.
struct Lease {
  Task task;
  std::string worker;
  int64_t attempt = 0;
  double expires_at = 0;
  // When the task's function started (unix seconds), set by the worker: complete() and fail()
  // store it, so that a task leased and started at once costs no statement of its own.
  std::optional<double> started_at{};
};

struct TaskFilter {
  std::optional<int64_t> plan_id{};
  std::optional<TaskStatus> status{};
  int64_t limit = 1000;  // in id order
  int64_t after_id = 0;  // for paging
};

// What a worker asks complete() to lease in the same commit: up to max_tasks of its next
// tasks, leased and started as lease_and_start does (one commit per task instead of two).
struct NextLeases {
  std::vector<std::string> kinds{}, tags{};
  double lease_seconds = 30;
  int max_tasks = 1;
  std::vector<Lease> leased{};  // set by complete()
};

// What fail() did with the attempt.
enum class FailOutcome { refused, retrying, failed };

class Queue {
 public:
  explicit Queue(const hub::Hub& hub);

  // --- submitting and watching (the master's side) ---
  // Tasks whose dependencies already failed or were cancelled are cancelled at once.
  int64_t submit(const TaskSpec& spec);
  PlanProgress submit(const Plan& plan);  // every task in one transaction
  std::optional<Task> get(int64_t task_id);
  std::vector<Task> list(const TaskFilter& filter = {});
  // Cancels a task that has not finished, and its dependents; false when it had finished.
  bool cancel(int64_t task_id, const std::string& reason = "cancelled by the user");
  PlanProgress plan_progress(int64_t plan_id);
  int64_t cancel_plan(int64_t plan_id, const std::string& reason = "plan cancelled by the user");
  // Removes a finished plan: its row, its tasks, their dependency links and tags. A plan with
  // unfinished tasks is refused (an Error counting them) unless `force`, which first cancels
  // them and their dependents (inside the plan or not), as cancel() would. Links of tasks
  // outside the plan on its tasks are dropped (counted): those tasks were released or cancelled.
  PlanCleanup clean_plan(int64_t plan_id, bool force = false);
  // clean_plan for every plan of the project whose tasks have all finished (the last more than
  // `older_than_seconds` ago, when given), oldest first, each in its own transaction: leases go
  // on between them (on PostgreSQL also during one: they touch other rows).
  std::vector<PlanCleanup> clean_finished_plans(std::optional<double> older_than_seconds = std::nullopt);
  // Re-queues tasks of the plan that failed for good (`task_ids`, or every failed one when
  // empty) with the dependents their failure cancelled, downstream, in one transaction. Each
  // re-queued task's earlier run goes to history(); it gets as many attempts again as its run
  // had (attempt numbers keep counting, so a stale worker of an earlier run stays fenced off).
  // A dependent that also waits on another failed or cancelled task not re-queued stays
  // cancelled. Returns the ids re-queued, ascending. An Error names a task that is not in the
  // plan or has not failed.
  std::vector<int64_t> retry(int64_t plan_id, const std::vector<int64_t>& task_ids = {});
  // The earlier runs of a task, oldest first (empty when it was never re-queued).
  std::vector<TaskRun> history(int64_t task_id);
  // Polls until every task of the plan finished, or the timeout passed (then returns as is).
  PlanProgress wait_plan(int64_t plan_id, std::chrono::milliseconds timeout = std::chrono::hours(24 * 365));
  std::optional<Task> wait(int64_t task_id, std::chrono::milliseconds timeout = std::chrono::hours(24 * 365));

  // --- leasing (the worker's side) ---
  // The highest-priority pending task whose dependencies all succeeded, of one of `kinds`,
  // whose required tags are all in `tags`; leased to `worker` for `lease_seconds`. Leases that
  // expired (their worker died or stalled) are first put back to pending, or failed once they
  // used max_attempts.
  std::optional<Lease> lease(const std::string& worker, const std::vector<std::string>& kinds,
                             const std::vector<std::string>& tags, double lease_seconds);
  // Whether a task of one of `kinds` whose required tags are all in `tags` waits for nothing
  // but, at most, its retry delay: what an idle worker with these must stay for.
  bool has_ready(const std::vector<std::string>& kinds, const std::vector<std::string>& tags);
  // Up to `max_tasks` leases, as lease() picks them, in one statement (one commit), already
  // running: for a worker that starts each at once on a free slot (concurrency N leases up to
  // N per round trip). Their started_at is the lease's until complete or fail stores the
  // Lease's own.
  std::vector<Lease> lease_and_start(const std::string& worker, const std::vector<std::string>& kinds,
                                     const std::vector<std::string>& tags, double lease_seconds, int max_tasks);
  bool start(const Lease& lease);                          // leased -> running
  bool heartbeat(Lease& lease, double lease_seconds);      // extends expires_at
  // Stores the result, the success and the staged `outputs` (model and dataset versions) in one
  // transaction and releases the dependents; false, writing nothing, when the lease is not
  // current. On PostgreSQL without outputs it is one statement (one round trip, one commit). With outputs, the stored result (an object; anything else becomes {"value": ...})
  // gets "outputs": [{"model": name, "version": n}, {"dataset": name, "version": n}, ...].
  // With `next`, the same commit also leases the worker's next tasks (next->leased; the worker
  // is the lease's), whether or not this result was refused.
  bool complete(const Lease& lease, const std::string& result_json, const std::string& log_tail = "",
                const TaskOutputs* outputs = nullptr, NextLeases* next = nullptr);
  // Back to pending after the task's back-off, or failed for good (after max_attempts, or
  // when `permanent`), which cancels its dependents with the reason.
  FailOutcome fail(const Lease& lease, const std::string& error, const std::string& log_tail = "",
                   bool permanent = false);
  // Puts expired leases back (lease() does this too, at most a few times a second).
  int64_t reclaim_expired();
  // For an idle worker: on PostgreSQL, waits up to `seconds` for a submission or a released
  // dependent (LISTEN / NOTIFY) and returns true; on SQLite returns false at once (poll instead).
  bool wait_for_work(double seconds);

 private:
  std::vector<Lease> take(const std::string& worker, const std::vector<std::string>& kinds,
                          const std::vector<std::string>& tags, double lease_seconds, int max_tasks, bool start);
  hub::SharedConnection connection_;
  double last_reclaim_ = 0;
};

}  // namespace strata::workflow
