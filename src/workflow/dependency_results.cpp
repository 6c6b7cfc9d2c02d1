// Reading a running task's dependencies' results from the queue.
#include "dependency_results.hpp"

#include "strata/core/error.hpp"
#include "strata/core/limits.hpp"
#include "strata/workflow/queue.hpp"

namespace strata::workflow::detail {

std::vector<DependencyResult> dependency_results(TaskContext& ctx, const std::string& who) {
  Queue queue(ctx.hub);
  const auto self = queue.get(ctx.task.id);
  STRATA_CHECK(self.has_value(), who, ": task ", std::to_string(ctx.task.id), " is gone");
  std::vector<DependencyResult> out;
  for (int64_t dep : self->depends_on) {
    const auto t = queue.get(dep);
    STRATA_CHECK(t && t->status == TaskStatus::succeeded && t->result, who, ": task ", std::to_string(ctx.task.id),
                 " depends on task ", std::to_string(dep), ", which has not succeeded");
    check_json_depth(*t->result, who + ": the result of task " + std::to_string(dep));
    out.push_back({dep, nlohmann::json::parse(*t->result)});
  }
  return out;
}

}  // namespace strata::workflow::detail
