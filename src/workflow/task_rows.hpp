// What the queue's two halves (queue.cpp: submitting and watching; lease.cpp: the workers'
// side) share: the task columns and their parsing, and the cascade that cancels dependents.
#pragma once
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "strata/hub/sql.hpp"
#include "strata/workflow/plan.hpp"
#include "strata/workflow/task.hpp"

namespace strata::workflow::detail {

using hub::Database;
using hub::Param;
using hub::Params;
using hub::Row;

// The columns task_from_row reads, in order (without depends_on, which is another table).
extern const char* const kTaskColumns;
Task task_from_row(const Row& r);
// Column `c` of `r` as a number, or nothing when NULL.
std::optional<double> optional_real(const Row& r, int c);

// Marks every unfinished task downstream of `task_id` cancelled with `reason`, inside the
// caller's write transaction. Returns how many.
int64_t cancel_dependents(Database& db, int64_t task_id, const std::string& reason, double now);

// The plan's name, its tasks and how many are in each status, inside the caller's transaction;
// nothing when the plan is not in `project` (or there is no project yet).
std::optional<PlanProgress> read_plan_progress(Database& db, std::optional<int64_t> project, int64_t plan_id);

// The notification channel of work that became leasable (PostgreSQL; Database::notify).
inline const std::string kWorkChannel = "strata_tasks";

// The statement that leases (`start`: leases and starts, up to LIMIT ?) the best ready task of
// n_kinds kinds for a worker with n_tags tags; parameters: worker, expires_at, leased_at,
// [started_at,] project, now, kinds..., tags..., [limit]. (Here for the EXPLAIN test.)
std::string lease_sql(hub::Dialect dialect, size_t n_kinds, size_t n_tags, bool start);
// Pending tasks whose dependencies all succeeded, of the kinds and tags; parameters: project,
// [now,] kinds..., tags...
std::string ready_sql(size_t n_kinds, size_t n_tags, bool due_now);

// "?, ?, ?" for n parameters.
std::string placeholders(size_t n);

// `values` sorted, each once: a task's dependencies and tags (a dependency named twice is waited
// for once; it has one task_deps row to release it).
template <class T>
std::vector<T> sorted_distinct(std::vector<T> values) {
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  return values;
}

// Tags are stored sorted as ",a,b," text for display and in task_tags for leasing.
std::string join_tags(const std::vector<std::string>& tags);
std::vector<std::string> split_tags(const std::string& text);

}  // namespace strata::workflow::detail
