// TaskRegistry: the kinds of task a worker can run, each a C++ function registered by name with
// the parameters it declares. Workers run only registered kinds and validate a task's
// parameters before calling its function: nothing stored in the database is executed as code.
#pragma once
#include <atomic>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "strata/hub/hub.hpp"
#include "strata/workflow/task.hpp"
#include "strata/workflow/task_outputs.hpp"

namespace strata::workflow {

enum class ParamType { any, boolean, integer, number, string, array, object };

struct ParamSpec {
  std::string name{};
  ParamType type = ParamType::any;
  bool required = false;
  nlohmann::json default_value = nullptr;  // filled in when absent (null: left out)
  std::string help{};
};

// What a task function sees while it runs.
struct TaskContext {
  TaskContext(const Task& t, const nlohmann::json& p, hub::Hub& h) : task(t), params(p), hub(h) {}
  const Task& task;
  const nlohmann::json& params;  // validated, defaults filled in
  // The worker's connection, to read models and datasets. Its saves commit at once, whatever
  // becomes of the task: save a task's outputs through `outputs` instead.
  hub::Hub& hub;
  // Model and dataset versions committed with the result, only if this attempt's result is.
  TaskOutputs outputs;
  // Appends a line to the task's log tail (the last ~4 KiB are stored with the result).
  void log(const std::string& line);
  // True once the worker lost the lease (it expired, or the task was cancelled): the result
  // will be refused, so a long task may stop early.
  bool lease_lost() const { return lost.load(); }

  std::string log_tail;
  std::atomic<bool> lost{false};
};

// The dataset version the task's input_dataset key names ("NAME" or "NAME:VERSION").
hub::LoadedDataset load_input_dataset(TaskContext& ctx);

// Returns the task's result; throwing fails the attempt (retried until max_attempts).
using TaskFn = std::function<nlohmann::json(TaskContext&)>;

struct TaskKind {
  std::string name{};
  std::vector<ParamSpec> params{};
  TaskFn fn{};
  std::string help{};
  bool allow_unknown_params = false;  // otherwise a parameter not declared is an error
};

class TaskRegistry {
 public:
  void add(TaskKind kind);  // throws on an empty name, a duplicate, or no function
  bool contains(const std::string& name) const { return kinds_.count(name) > 0; }
  const TaskKind& at(const std::string& name) const;
  std::vector<std::string> names() const;
  // The parameters with defaults filled in; throws strata::Error naming the kind, the
  // parameter, what it expected and what came.
  nlohmann::json validate(const std::string& kind, const nlohmann::json& params) const;

 private:
  std::map<std::string, TaskKind> kinds_;
};

}  // namespace strata::workflow
