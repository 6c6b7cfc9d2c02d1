// The results of the tasks a running task depends on, read back from the queue: what a
// successive-halving rung ranks and what a cross-validation aggregate averages.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "strata/workflow/registry.hpp"

namespace strata::workflow::detail {

struct DependencyResult {
  int64_t task_id = 0;
  nlohmann::json result;  // the parsed JSON result of a succeeded task
};

// The dependencies of ctx.task in dependency order; throws strata::Error, naming `who` and the
// task, when one has not succeeded (a lease's task does not carry its dependencies, so this
// reads the task back).
std::vector<DependencyResult> dependency_results(TaskContext& ctx, const std::string& who);

}  // namespace strata::workflow::detail
