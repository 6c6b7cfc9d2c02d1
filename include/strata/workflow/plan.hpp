// A plan: a DAG of tasks submitted in one transaction (train a CNN, then an RNN on its features,
// then evaluate), built in C++ with add() or read from JSON; and its progress once submitted.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "strata/workflow/task.hpp"

namespace strata::workflow {

class Plan {
 public:
  explicit Plan(std::string name = "plan") : name_(std::move(name)) {}

  // Adds a task; its `after` must name tasks added before (numbers add returned), so a plan
  // is acyclic by construction. Returns this task's number in the plan (0, 1, ...).
  int64_t add(TaskSpec spec);

  // {"name": "...", "tasks": [{"name": "cnn", "kind": "train", "params": {...},
  //   "after": ["other-name", ...], "tags": [...], "priority": 0, "max_attempts": 3,
  //   "retry_delay_seconds": 0.5, "input_dataset": "", "model": "", "output_dataset": ""}]}
  // Tasks may be listed in any order; names must be unique; unknown fields, unknown names in
  // `after` and cycles are errors naming the task.
  static Plan from_json(const std::string& text);

  const std::string& name() const { return name_; }
  const std::vector<TaskSpec>& tasks() const { return tasks_; }

 private:
  std::string name_;
  std::vector<TaskSpec> tasks_;
};

// A submitted plan: its tasks' ids in the order they were added, and how many are in each status.
struct PlanProgress {
  int64_t plan_id = 0;
  std::string name;
  std::vector<int64_t> task_ids;
  std::array<int64_t, 6> counts{};  // indexed by TaskStatus

  int64_t count(TaskStatus s) const { return counts[static_cast<size_t>(s)]; }
  int64_t total() const;
  int64_t finished() const;  // succeeded + failed + cancelled
  bool done() const { return finished() == total(); }
  bool all_succeeded() const { return count(TaskStatus::succeeded) == total(); }
  // "plan 3 (captioning): 7/10 finished: 6 succeeded, 1 failed; 2 running, 1 pending"
  std::string summary() const;
};

// What Queue::clean_plan removed: the plan as it was (its tasks by status), and how many
// dependency links of tasks outside the plan on its tasks went with it.
struct PlanCleanup {
  PlanProgress removed;
  int64_t outside_links = 0;
};

}  // namespace strata::workflow
