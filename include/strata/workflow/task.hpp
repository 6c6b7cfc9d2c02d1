// A task of the workflow queue: a registered kind of work, its JSON parameters, the hub keys it
// reads and writes, its dependencies, and where it stands (status, attempts, lease, result).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace strata::workflow {

enum class TaskStatus { pending, leased, running, succeeded, failed, cancelled };

std::string_view to_string(TaskStatus status);
// Throws strata::Error naming the text and the valid statuses.
TaskStatus parse_task_status(std::string_view text);
inline bool is_finished(TaskStatus s) {
  return s == TaskStatus::succeeded || s == TaskStatus::failed || s == TaskStatus::cancelled;
}

// What to run. In Queue::submit(TaskSpec) `after` holds task ids; in a Plan it holds the
// numbers Plan::add returned.
struct TaskSpec {
  std::string kind{};                // a kind registered with the workers (TaskRegistry)
  std::string params = "{}";         // a JSON object, validated by the worker against the kind
  std::string name{};                // free text; a plan's local name
  std::string input_dataset{};       // the task's keys in the hub (TensorLayer's workflow keys)
  std::string model{};
  std::string output_dataset{};
  std::vector<int64_t> after{};      // runs once all of these succeeded
  int64_t priority = 0;              // higher first; equal priorities in submission order
  std::vector<std::string> tags{};   // only workers having every one of these tags lease it
  int64_t max_attempts = 3;          // leases before the task fails for good
  double retry_delay_seconds = 0.5;  // back-off after a failed attempt: doubles each attempt
};

struct Task {
  int64_t id = 0;
  std::optional<int64_t> plan_id;
  std::string name, kind, params;
  std::string input_dataset, model, output_dataset;
  std::vector<int64_t> depends_on;
  int64_t priority = 0;
  std::vector<std::string> tags;
  TaskStatus status = TaskStatus::pending;
  int64_t attempts = 0;  // leases so far; the current lease's fencing number
  int64_t max_attempts = 0;
  double retry_delay_seconds = 0;
  std::string worker;                // the worker holding or last holding the lease
  std::optional<double> lease_expires_at;
  std::optional<std::string> result;  // JSON, set exactly when succeeded
  std::string error;                 // the last attempt's error, or why it was cancelled
  std::string log_tail;              // the last lines the task logged
  double created_at = 0;
  std::optional<double> leased_at, started_at, finished_at;  // unix seconds, of the last attempt
};

// An earlier run of a task, kept when a user re-queued it (Queue::retry): how that run ended.
struct TaskRun {
  int64_t attempts = 0;      // the task's attempt number when the run ended (0: never leased)
  int64_t max_attempts = 0;  // the run's limit on attempts
  TaskStatus status = TaskStatus::failed;  // failed, or cancelled (a dependent of a failure)
  std::string worker, error, log_tail;
  std::optional<double> leased_at, started_at, finished_at;  // of the run's last attempt
  double retried_at = 0;
};

}  // namespace strata::workflow
