// Task statuses as text (the database stores them so) and plan progress summaries.
#include "strata/workflow/task.hpp"

#include <array>

#include "strata/core/error.hpp"
#include "strata/workflow/plan.hpp"

namespace strata::workflow {
namespace {
constexpr std::array<std::string_view, 6> kStatusNames = {"pending", "leased", "running",
                                                          "succeeded", "failed", "cancelled"};
}

std::string_view to_string(TaskStatus status) { return kStatusNames[static_cast<size_t>(status)]; }

TaskStatus parse_task_status(std::string_view text) {
  for (size_t i = 0; i < kStatusNames.size(); ++i)
    if (kStatusNames[i] == text) return static_cast<TaskStatus>(i);
  throw Error("workflow: unknown task status \"" + std::string(text) +
              "\"; expected pending, leased, running, succeeded, failed or cancelled");
}

int64_t PlanProgress::total() const {
  int64_t n = 0;
  for (int64_t c : counts) n += c;
  return n;
}

int64_t PlanProgress::finished() const {
  return count(TaskStatus::succeeded) + count(TaskStatus::failed) + count(TaskStatus::cancelled);
}

std::string PlanProgress::summary() const {
  std::string out = "plan " + std::to_string(plan_id) + (name.empty() ? "" : " (" + name + ")") + ": " +
                    std::to_string(finished()) + "/" + std::to_string(total()) + " finished";
  const auto list = [&](std::initializer_list<TaskStatus> which) {
    std::string part;
    for (TaskStatus s : which)
      if (count(s) > 0) part += (part.empty() ? "" : ", ") + std::to_string(count(s)) + " " + std::string(to_string(s));
    return part;
  };
  const std::string done = list({TaskStatus::succeeded, TaskStatus::failed, TaskStatus::cancelled});
  const std::string open = list({TaskStatus::running, TaskStatus::leased, TaskStatus::pending});
  if (!done.empty()) out += ": " + done;
  if (!open.empty()) out += "; " + open;
  return out;
}

}  // namespace strata::workflow
