// Building plans in C++ and reading them from JSON files (`strata plan submit FILE.json`).
#include "strata/workflow/plan.hpp"

#include <map>

#include <nlohmann/json.hpp>

#include "spec_fields.hpp"
#include "strata/core/error.hpp"
#include "strata/core/limits.hpp"

namespace strata::workflow {

using nlohmann::json;
using detail::SpecFields;

int64_t Plan::add(TaskSpec spec) {
  const auto number = static_cast<int64_t>(tasks_.size());
  check_limit("plan \"" + name_ + "\"", "tasks", tasks_.size() + 1, "max_plan_tasks", limits().max_plan_tasks);
  STRATA_CHECK(!spec.kind.empty(), "Plan::add: task ", std::to_string(number), " (\"", spec.name, "\") has no kind");
  for (int64_t dep : spec.after)
    STRATA_CHECK(dep >= 0 && dep < number, "Plan::add: task ", std::to_string(number), " (\"", spec.name,
                 "\") runs after task ", std::to_string(dep), ", but only tasks 0..", std::to_string(number - 1),
                 " were added before it");
  STRATA_CHECK(spec.max_attempts >= 1, "Plan::add: task \"", spec.name, "\": max_attempts must be at least 1, got ",
               std::to_string(spec.max_attempts));
  if (spec.name.empty()) spec.name = "task" + std::to_string(number);
  tasks_.push_back(std::move(spec));
  return number;
}

namespace {

struct Entry {
  TaskSpec spec;
  std::vector<std::string> after;
};

Entry parse_task(const json& j, size_t index) {
  STRATA_CHECK(j.is_object(), "plan: tasks[", std::to_string(index), "] must be an object, got ", j.dump());
  Entry e;
  STRATA_CHECK(j.contains("name") && j["name"].is_string() && !j["name"].get<std::string>().empty(), "plan: tasks[",
               std::to_string(index), "] needs a \"name\" (a non-empty string)");
  e.spec.name = j["name"];
  const std::string who = "plan: task \"" + e.spec.name + "\"";
  json params = json::object();
  double priority = 0, max_attempts = static_cast<double>(e.spec.max_attempts);
  SpecFields(who)
      .text("name", e.spec.name)
      .text("kind", e.spec.kind)
      .object("params", params)
      .strings("after", e.after)
      .strings("tags", e.spec.tags)
      .number("priority", priority)
      .number("max_attempts", max_attempts)
      .number("retry_delay_seconds", e.spec.retry_delay_seconds)
      .text("input_dataset", e.spec.input_dataset)
      .text("model", e.spec.model)
      .text("output_dataset", e.spec.output_dataset)
      .read(j);
  e.spec.params = params.dump();
  e.spec.priority = static_cast<int64_t>(priority);
  e.spec.max_attempts = static_cast<int64_t>(max_attempts);
  STRATA_CHECK(!e.spec.kind.empty(), who, " has no \"kind\"");
  return e;
}

}  // namespace

Plan Plan::from_json(const std::string& text) {
  check_json_depth(text, "plan");
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception& e) {  // a syntax error, or a number out of range (1e999)
    throw Error(std::string("plan: not valid JSON: ") + e.what());
  }
  STRATA_CHECK(j.is_object() && j.contains("tasks") && j["tasks"].is_array(),
               "plan: expected an object with a \"tasks\" array, got ", j.dump().substr(0, 200));
  for (const auto& [key, value] : j.items())
    STRATA_CHECK(key == "name" || key == "tasks", "plan: unknown field \"", key, "\"; expected name and tasks");
  Plan plan(j.value("name", std::string("plan")));
  check_limit("plan \"" + plan.name() + "\"", "tasks", j["tasks"].size(), "max_plan_tasks", limits().max_plan_tasks);
  std::vector<Entry> entries;
  std::map<std::string, size_t> by_name;
  for (size_t i = 0; i < j["tasks"].size(); ++i) {
    entries.push_back(parse_task(j["tasks"][i], i));
    STRATA_CHECK(by_name.emplace(entries.back().spec.name, i).second, "plan: two tasks are named \"",
                 entries.back().spec.name, "\"");
  }
  for (const auto& e : entries)
    for (const auto& dep : e.after)
      STRATA_CHECK(by_name.count(dep), "plan: task \"", e.spec.name, "\" runs after \"", dep,
                   "\", which is not a task of the plan");
  // Add in a topological order, so every `after` names an earlier task: depth first, with a
  // stack of our own, since a legitimate chain of tasks can be longer than the thread's stack.
  std::vector<int64_t> number(entries.size(), -1);  // in the plan, once added
  std::vector<bool> on_path(entries.size(), false);
  for (size_t root = 0; root < entries.size(); ++root) {
    if (number[root] >= 0) continue;
    std::vector<std::pair<size_t, size_t>> path{{root, 0}};  // (entry, its next `after` to visit)
    on_path[root] = true;
    while (!path.empty()) {
      const size_t i = path.back().first;
      const Entry& e = entries[i];
      if (path.back().second < e.after.size()) {
        const size_t dep = by_name.at(e.after[path.back().second++]);
        if (number[dep] >= 0) continue;
        STRATA_CHECK(!on_path[dep], "plan: task \"", entries[dep].spec.name,
                     "\" depends on itself through its \"after\" chain (a cycle)");
        on_path[dep] = true;
        path.emplace_back(dep, 0);
        continue;
      }
      TaskSpec spec = e.spec;
      for (const auto& dep : e.after) spec.after.push_back(number[by_name.at(dep)]);
      number[i] = plan.add(std::move(spec));
      on_path[i] = false;
      path.pop_back();
    }
  }
  return plan;
}

}  // namespace strata::workflow
