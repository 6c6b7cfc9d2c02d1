#include "plan_commands.hpp"

#include <unistd.h>

#include <cmath>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "strata/core/error.hpp"
#include "strata/workflow/plan_file.hpp"
#include "strata/workflow/queue.hpp"
#include "strata/hub/stored_json.hpp"
#include "table.hpp"

namespace strata::cli {

using nlohmann::json;
using workflow::PlanProgress;
using workflow::TaskStatus;

namespace {

struct PlanArgs {
  std::string url = "strata.db";
  std::string project = "default";
  bool as_json = false;
};

hub::Hub open_hub(const PlanArgs& args) {
  hub::HubOptions options;
  options.project = args.project;
  return hub::Hub::open(args.url, options);
}

json to_json(const PlanProgress& p) {
  json counts = json::object();
  for (int s = 0; s < 6; ++s) counts[std::string(workflow::to_string(static_cast<TaskStatus>(s)))] = p.counts[s];
  return {{"plan", p.plan_id}, {"name", p.name}, {"tasks", p.task_ids}, {"counts", counts}, {"done", p.done()}};
}

void print(const PlanArgs& args, const PlanProgress& p) {
  if (args.as_json) std::cout << to_json(p).dump(2) << '\n';
  else std::cout << p.summary() << '\n';
}

void submit(const PlanArgs& args, const std::string& file) {
  std::ifstream in(file);
  STRATA_CHECK(in.good(), "plan submit: cannot read \"", file, "\"");
  std::stringstream text;
  text << in.rdbuf();
  const auto plan = workflow::parse_plan_file(text.str());
  auto hub = open_hub(args);
  const PlanProgress p = workflow::Queue(hub).submit(plan);
  if (args.as_json) print(args, p);
  else std::cout << "plan " << p.plan_id << " (" << p.name << "): " << p.task_ids.size() << " tasks submitted\n";
}

// Prints the progress line until the plan is done: rewritten in place on a terminal, one line
// per change otherwise. Exit status 0 when every task succeeded, 2 otherwise.
int wait(const PlanArgs& args, int64_t plan_id, double timeout) {
  auto hub = open_hub(args);
  workflow::Queue queue(hub);
  const bool tty = ::isatty(1) && !args.as_json;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout);
  std::string last;
  PlanProgress p;
  for (;;) {
    p = queue.plan_progress(plan_id);
    const std::string line = p.summary();
    if (line != last && !args.as_json) std::cout << (tty ? "\r\033[K" : "") << line << (tty ? "" : "\n") << std::flush;
    last = line;
    if (p.done() || std::chrono::steady_clock::now() >= deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  if (tty) std::cout << '\n';
  if (args.as_json) print(args, p);
  STRATA_CHECK(p.done(), "plan wait: plan ", std::to_string(plan_id), " did not finish within ", std::to_string(timeout), " s");
  return p.all_succeeded() ? 0 : 2;
}

std::string format_seconds(const std::optional<double>& from, const std::optional<double>& to) {
  if (!from || !to) return "";
  std::ostringstream s;
  s.precision(3);
  s << std::fixed << (*to - *from);
  return s.str();
}

void tasks(const PlanArgs& args, int64_t plan_id) {
  auto hub = open_hub(args);
  workflow::Queue queue(hub);
  queue.plan_progress(plan_id);  // an unknown plan is an error, not an empty table
  workflow::TaskFilter filter;
  filter.plan_id = plan_id;
  filter.limit = 1'000'000;
  const auto list = queue.list(filter);
  if (args.as_json) {
    json out = json::array();
    for (const auto& t : list)
      out.push_back({{"id", t.id}, {"name", t.name}, {"kind", t.kind}, {"status", workflow::to_string(t.status)},
                     {"attempts", t.attempts}, {"worker", t.worker}, {"after", t.depends_on},
                     {"result", t.result ? hub::stored_json(*t.result) : json()}, {"error", t.error}});
    std::cout << out.dump(2) << '\n';
    return;
  }
  Table table({"ID", "NAME", "KIND", "STATUS", "ATTEMPTS", "AFTER", "WORKER", "SECONDS", "ERROR"});
  for (const auto& t : list) {
    std::string after;
    for (int64_t d : t.depends_on) after += (after.empty() ? "" : ",") + std::to_string(d);
    table.add_row({std::to_string(t.id), t.name, t.kind, std::string(workflow::to_string(t.status)),
                   std::to_string(t.attempts) + "/" + std::to_string(t.max_attempts), after, t.worker,
                   format_seconds(t.started_at, t.finished_at), t.error.substr(0, 60)});
  }
  table.print(std::cout);
}

void print_cleanup(const PlanArgs& args, const workflow::PlanCleanup& c) {
  if (args.as_json) {
    std::cout << json{{"removed", to_json(c.removed)}, {"outside_links", c.outside_links}}.dump(2) << '\n';
    return;
  }
  std::cout << "removed " << c.removed.summary();
  if (c.outside_links > 0) std::cout << "; dropped " << c.outside_links << " links of other tasks on its tasks";
  std::cout << '\n';
}

// "90" or "90s", "15m", "12h", "30d": seconds. Anything else is an Error naming the text.
double parse_duration(const std::string& text) {
  size_t used = 0;
  double value = -1;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  const std::string unit = text.substr(used);
  const double scale = unit.empty() || unit == "s" ? 1 : unit == "m" ? 60 : unit == "h" ? 3600 : unit == "d" ? 86400 : -1;
  STRATA_CHECK(used > 0 && scale > 0 && value >= 0 && std::isfinite(value), "plan clean: --older-than \"", text,
               "\" is not a duration: give a number of seconds, or a number with s, m, h or d (30d)");
  return value * scale;
}

// One plan by id, or with --finished (or --older-than) every plan whose tasks have all finished.
void clean(const PlanArgs& args, const std::vector<int64_t>& ids, bool finished, bool force, const std::string& older_than) {
  if (!older_than.empty()) finished = true;
  STRATA_CHECK(finished != !ids.empty(), "plan clean: give plan ids or --finished / --older-than (not both)");
  STRATA_CHECK(!(finished && force), "plan clean: --force applies to plans named by id, not to --finished");
  const std::optional<double> age = older_than.empty() ? std::nullopt : std::optional<double>(parse_duration(older_than));
  auto hub = open_hub(args);
  workflow::Queue queue(hub);
  if (finished) {
    const auto removed = queue.clean_finished_plans(age);
    for (const auto& c : removed) print_cleanup(args, c);
    if (!args.as_json) std::cout << removed.size() << " finished plans removed\n";
    return;
  }
  for (int64_t id : ids) print_cleanup(args, queue.clean_plan(id, force));
}

void retry(const PlanArgs& args, int64_t plan_id, const std::vector<int64_t>& task_ids) {
  auto hub = open_hub(args);
  const auto requeued = workflow::Queue(hub).retry(plan_id, task_ids);
  if (args.as_json) {
    std::cout << json{{"plan", plan_id}, {"requeued", requeued}}.dump(2) << '\n';
    return;
  }
  std::string ids;
  for (int64_t t : requeued) ids += (ids.empty() ? " (" : ", ") + std::to_string(t);
  std::cout << "plan " << plan_id << ": " << requeued.size() << " tasks re-queued" << ids << (ids.empty() ? "" : ")")
            << '\n';
}

}  // namespace

void add_plan_commands(CLI::App& app) {
  auto args = std::make_shared<PlanArgs>();
  auto* plan = app.add_subcommand("plan", "Workflow plans: DAGs of tasks run by `strata worker`");
  plan->require_subcommand(1);
  plan->fallthrough();
  plan->add_option("--hub", args->url, "Hub URL: a SQLite path or postgresql://...")->capture_default_str();
  plan->add_option("--project", args->project, "Project of the hub")->capture_default_str();
  plan->add_flag("--json", args->as_json, "Print JSON");

  auto file = std::make_shared<std::string>();
  auto* cmd = plan->add_subcommand("submit", "Submit a plan file in one transaction: JSON tasks, a search or a cross-validation (docs/workflow.md)");
  cmd->add_option("file", *file, "Plan file")->required();
  cmd->callback([=] { submit(*args, *file); });

  auto id = std::make_shared<int64_t>(0);
  cmd = plan->add_subcommand("status", "One line: how many tasks are in each status");
  cmd->add_option("id", *id, "Plan id")->required();
  cmd->callback([=] { print(*args, workflow::Queue(open_hub(*args)).plan_progress(*id)); });

  auto timeout = std::make_shared<double>(365.0 * 24 * 3600);
  cmd = plan->add_subcommand("wait", "Follow a plan until it finishes; exit 0 if every task succeeded, 2 if not");
  cmd->add_option("id", *id, "Plan id")->required();
  cmd->add_option("--timeout", *timeout, "Give up (exit 1) after this many seconds");
  cmd->callback([=] {
    const int status = wait(*args, *id, *timeout);
    if (status != 0) throw CLI::RuntimeError(status);
  });

  cmd = plan->add_subcommand("cancel", "Cancel every unfinished task of a plan");
  cmd->add_option("id", *id, "Plan id")->required();
  cmd->callback([=] {
    auto hub = open_hub(*args);
    const int64_t n = workflow::Queue(hub).cancel_plan(*id);
    std::cout << "plan " << *id << ": " << n << " tasks cancelled\n";
  });

  auto ids = std::make_shared<std::vector<int64_t>>();
  auto finished = std::make_shared<bool>(false), force = std::make_shared<bool>(false);
  cmd = plan->add_subcommand("clean", "Remove finished plans and their tasks from the queue, saying what went");
  cmd->add_option("ids", *ids, "Plan ids");
  cmd->add_flag("--finished", *finished, "Every plan whose tasks have all finished");
  cmd->add_flag("--force", *force, "Also a plan with unfinished tasks (cancelled first, with their dependents)");
  auto older_than = std::make_shared<std::string>();
  cmd->add_option("--older-than", *older_than,
                  "Every finished plan whose last task finished longer ago than this (90s, 15m, 12h, 30d)");
  cmd->callback([=] { clean(*args, *ids, *finished, *force, *older_than); });

  auto task_ids = std::make_shared<std::vector<int64_t>>();
  cmd = plan->add_subcommand("retry",
                             "Re-queue failed tasks of a plan (the named ones, or every failed one) with the dependents "
                             "their failure cancelled; earlier runs are kept");
  cmd->add_option("id", *id, "Plan id")->required();
  cmd->add_option("tasks", *task_ids, "Task ids (default: every failed task of the plan)");
  cmd->callback([=] { retry(*args, *id, *task_ids); });

  auto task = std::make_shared<int64_t>(0);
  cmd = plan->add_subcommand("log", "The last lines a task logged (its log tail), after its status");
  cmd->add_option("task", *task, "Task id")->required();
  cmd->callback([=] {
    auto hub = open_hub(*args);
    const std::optional<workflow::Task> t = workflow::Queue(hub).get(*task);
    STRATA_CHECK(t, "plan log: no task ", *task);
    std::cout << "task " << t->id << " (" << t->kind << "): " << workflow::to_string(t->status) << ", attempt "
              << t->attempts << (t->error.empty() ? "" : ", error: " + t->error) << '\n'
              << t->log_tail << (t->log_tail.empty() || t->log_tail.back() == '\n' ? "" : "\n");
  });

  cmd = plan->add_subcommand("tasks", "The tasks of a plan: status, attempts, worker, error");
  cmd->add_option("id", *id, "Plan id")->required();
  cmd->callback([=] { tasks(*args, *id); });
}

}  // namespace strata::cli
