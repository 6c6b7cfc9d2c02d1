// The queue's submitting and watching side: submit tasks and plans, read them, cancel them.
// The workers' side (lease, heartbeat, complete, fail) is in lease.cpp.
#include "strata/workflow/queue.hpp"

#include <map>
#include <thread>

#include <nlohmann/json.hpp>

#include "strata/core/limits.hpp"
#include "batch_insert.hpp"
#include "task_rows.hpp"

namespace strata::workflow {

using hub::unix_now;
using namespace detail;

Queue::Queue(const hub::Hub& hub) : connection_(hub) {}

namespace {

void check_spec(const TaskSpec& spec, const std::string& who) {
  STRATA_CHECK(!spec.kind.empty(), who, ": the task has no kind");
  STRATA_CHECK(spec.max_attempts >= 1, who, ": max_attempts must be at least 1, got ", std::to_string(spec.max_attempts));
  STRATA_CHECK(spec.retry_delay_seconds >= 0, who, ": retry_delay_seconds must not be negative");
  // Before the parse: every worker copies the params, recursively.
  check_json_depth(spec.params, who + ": params");
  const auto params = nlohmann::json::parse(spec.params, nullptr, false);
  STRATA_CHECK(params.is_object(), who, ": params must be a JSON object, got ", spec.params.substr(0, 200));
  for (const auto& tag : spec.tags)
    STRATA_CHECK(!tag.empty() && tag.find(',') == std::string::npos, who, ": a tag must be non-empty and have no comma, got \"",
                 tag, "\"");
}

// Inserts one task outside any plan (its dependencies are ids already in the database), inside
// a write transaction. A task whose dependency failed or was cancelled is cancelled at once. A
// dependency named twice is waited for once (it has one task_deps row to release it).
int64_t insert_task(Database& db, int64_t project, const TaskSpec& spec, double now) {
  const std::vector<int64_t> deps = sorted_distinct(spec.after);
  int64_t waiting = 0;
  std::string dead;  // why it cannot run
  for (int64_t dep : deps) {
    std::optional<std::string> status;
    db.query("SELECT status FROM tasks WHERE id = ? AND project_id = ?", {dep, project},
             [&](const Row& r) { status = r.text(0); });
    STRATA_CHECK(status, "Queue::submit: task \"", spec.name, "\" depends on task ", std::to_string(dep),
                 ", which is not in this project");
    if (*status != "succeeded") ++waiting;
    if ((*status == "failed" || *status == "cancelled") && dead.empty())
      dead = "dependency " + std::to_string(dep) + " " + *status + " before this task was submitted";
  }
  const std::string tags = join_tags(spec.tags);
  const std::string_view status = dead.empty() ? "pending" : "cancelled";
  const Param finished = dead.empty() ? Param(nullptr) : Param(now);
  auto id = db.query_int(
      "INSERT INTO tasks (project_id, plan_id, name, kind, params, input_dataset, model, output_dataset, priority, "
      "tags, status, waiting, attempts, max_attempts, retry_delay, not_before, worker, error, log_tail, created_at, "
      "finished_at) VALUES (?, NULL, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, 0, '', ?, '', ?, ?) RETURNING id",
      {project, std::string_view(spec.name), std::string_view(spec.kind), std::string_view(spec.params),
       std::string_view(spec.input_dataset), std::string_view(spec.model), std::string_view(spec.output_dataset),
       spec.priority, std::string_view(tags), status, waiting, spec.max_attempts, spec.retry_delay_seconds,
       std::string_view(dead), now, finished});
  for (int64_t dep : deps)
    db.execute("INSERT INTO task_deps (task_id, depends_on) VALUES (?, ?)", {*id, dep});
  for (const auto& tag : split_tags(tags))
    db.execute("INSERT INTO task_tags (task_id, tag) VALUES (?, ?)", {*id, std::string_view(tag)});
  return *id;
}

}  // namespace

int64_t Queue::submit(const TaskSpec& spec) {
  check_spec(spec, "Queue::submit");
  auto session = connection_.lock();
  int64_t id = 0;
  session.db().transaction(true, [&] {
    id = insert_task(session.db(), *session.project_id(true), spec, unix_now());
    session.db().notify(kWorkChannel);
  });
  return id;
}

namespace {

// Inserts a plan's tasks, their dependencies and tags inside the caller's write transaction, a
// few hundred rows per statement; returns the tasks' ids in plan order. The dependencies are
// tasks of the same plan, all pending, so each task waits for its distinct dependencies.
std::vector<int64_t> insert_plan_tasks(Database& db, int64_t project, int64_t plan_id, const Plan& plan, double now) {
  const auto& specs = plan.tasks();
  std::vector<std::vector<int64_t>> deps(specs.size());
  {
    BatchInsert tasks(db,
                      "INSERT INTO tasks (project_id, plan_id, name, kind, params, input_dataset, model, output_dataset, "
                      "priority, tags, status, waiting, attempts, max_attempts, retry_delay, not_before, worker, error, "
                      "log_tail, created_at) VALUES ",
                      "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?, 0, ?, ?, 0, '', '', '', ?)");
    for (size_t i = 0; i < specs.size(); ++i) {
      const TaskSpec& spec = specs[i];
      deps[i] = sorted_distinct(spec.after);
      for (Param p : {Param(project), Param(plan_id), Param(std::string_view(spec.name)), Param(std::string_view(spec.kind)),
                      Param(std::string_view(spec.params)), Param(std::string_view(spec.input_dataset)),
                      Param(std::string_view(spec.model)), Param(std::string_view(spec.output_dataset)),
                      Param(spec.priority), Param(tasks.keep(join_tags(spec.tags))),
                      Param(static_cast<int64_t>(deps[i].size())), Param(spec.max_attempts),
                      Param(spec.retry_delay_seconds), Param(now)})
        tasks.add(std::move(p));
    }
    tasks.flush();
  }
  // Ids grow in the order rows are inserted (SQLite's rowid, PostgreSQL's sequence, even when
  // another session takes ids between our statements), so the plan's ids sorted are its order.
  std::vector<int64_t> ids;
  ids.reserve(specs.size());
  db.query("SELECT id FROM tasks WHERE plan_id = ? ORDER BY id", {plan_id},
           [&](const Row& r) { ids.push_back(r.integer(0)); });
  STRATA_CHECK(ids.size() == specs.size(), "Queue::submit: plan \"", plan.name(), "\": inserted ",
               std::to_string(specs.size()), " tasks but found ", std::to_string(ids.size()));
  BatchInsert links(db, "INSERT INTO task_deps (task_id, depends_on) VALUES ", "(?, ?)");
  BatchInsert tags(db, "INSERT INTO task_tags (task_id, tag) VALUES ", "(?, ?)");
  for (size_t i = 0; i < specs.size(); ++i) {
    for (int64_t local : deps[i]) {
      links.add(ids[i]);
      links.add(ids.at(static_cast<size_t>(local)));
    }
    for (std::string& tag : sorted_distinct(specs[i].tags)) {
      tags.add(ids[i]);
      tags.add(tags.keep(std::move(tag)));
    }
  }
  links.flush();
  tags.flush();
  return ids;
}

}  // namespace

PlanProgress Queue::submit(const Plan& plan) {
  STRATA_CHECK(!plan.tasks().empty(), "Queue::submit: plan \"", plan.name(), "\" has no tasks");
  for (const auto& spec : plan.tasks()) check_spec(spec, "Queue::submit: plan \"" + plan.name() + "\", task \"" + spec.name + "\"");
  PlanProgress progress;
  progress.name = plan.name();
  {
    auto session = connection_.lock();
    Database& db = session.db();
    db.transaction(true, [&] {
      const double now = unix_now();
      const int64_t project = *session.project_id(true);
      progress.plan_id = *db.query_int("INSERT INTO plans (project_id, name, created_at) VALUES (?, ?, ?) RETURNING id",
                                       {project, std::string_view(plan.name()), now});
      progress.task_ids = insert_plan_tasks(db, project, progress.plan_id, plan, now);
      db.notify(kWorkChannel);
    });
  }
  progress.counts[static_cast<size_t>(TaskStatus::pending)] = static_cast<int64_t>(progress.task_ids.size());
  return progress;
}

std::optional<Task> Queue::get(int64_t task_id) {
  TaskFilter filter;
  filter.limit = 1;
  filter.after_id = task_id - 1;
  auto tasks = list(filter);
  if (tasks.empty() || tasks[0].id != task_id) return std::nullopt;
  return tasks[0];
}

std::vector<Task> Queue::list(const TaskFilter& filter) {
  auto session = connection_.lock();
  Database& db = session.db();
  std::vector<Task> out;
  auto project = session.project_id(false);
  if (!project) return out;
  std::string sql = std::string("SELECT ") + kTaskColumns + " FROM tasks WHERE project_id = ? AND id > ?";
  Params params{*project, filter.after_id};
  if (filter.plan_id) {
    sql += " AND plan_id = ?";
    params.emplace_back(*filter.plan_id);
  }
  std::string status;
  if (filter.status) {
    status = std::string(to_string(*filter.status));
    sql += " AND status = ?";
    params.emplace_back(std::string_view(status));
  }
  sql += " ORDER BY id LIMIT ?";
  params.emplace_back(filter.limit);
  db.transaction(false, [&] {
    out.clear();
    db.query(sql, params, [&](const Row& r) { out.push_back(task_from_row(r)); });
    if (out.empty()) return;
    // Dependencies of the whole page in one query.
    std::map<int64_t, Task*> by_id;
    for (auto& t : out) by_id[t.id] = &t;
    db.query("SELECT task_id, depends_on FROM task_deps WHERE task_id BETWEEN ? AND ? ORDER BY task_id, depends_on",
             {out.front().id, out.back().id}, [&](const Row& r) {
               if (auto it = by_id.find(r.integer(0)); it != by_id.end()) it->second->depends_on.push_back(r.integer(1));
             });
  });
  return out;
}

bool Queue::cancel(int64_t task_id, const std::string& reason) {
  auto session = connection_.lock();
  Database& db = session.db();
  bool cancelled = false;
  db.transaction(true, [&] {
    const double now = unix_now();
    cancelled = db.query_int(
                       "UPDATE tasks SET status = 'cancelled', error = ?, finished_at = ?, lease_expires_at = NULL "
                       "WHERE id = ? AND status IN ('pending', 'leased', 'running') RETURNING id",
                       {std::string_view(reason), now, task_id})
                    .has_value();
    if (cancelled) cancel_dependents(db, task_id, "dependency " + std::to_string(task_id) + " was cancelled: " + reason, now);
  });
  return cancelled;
}

PlanProgress Queue::plan_progress(int64_t plan_id) {
  auto session = connection_.lock();
  Database& db = session.db();
  std::optional<PlanProgress> p;
  db.transaction(false, [&] { p = read_plan_progress(db, session.project_id(false), plan_id); });
  STRATA_CHECK(p.has_value(), "workflow: there is no plan ", std::to_string(plan_id), " in project \"",
               session.project(), "\"");
  return *p;
}

int64_t Queue::cancel_plan(int64_t plan_id, const std::string& reason) {
  plan_progress(plan_id);  // throws for an unknown plan
  auto session = connection_.lock();
  Database& db = session.db();
  int64_t count = 0;
  db.transaction(true, [&] {
    count = 0;
    db.query(
        "UPDATE tasks SET status = 'cancelled', error = ?, finished_at = ?, lease_expires_at = NULL "
        "WHERE plan_id = ? AND status IN ('pending', 'leased', 'running') RETURNING id",
        {std::string_view(reason), unix_now(), plan_id}, [&](const Row&) { ++count; });
  });
  return count;
}

namespace {
// Polls `done` from every 5 ms up to every 200 ms until it is true or the time is up.
template <class F>
void poll(std::chrono::milliseconds timeout, F&& done) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  auto wait = std::chrono::milliseconds(5);
  while (!done() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::min(wait, std::chrono::duration_cast<std::chrono::milliseconds>(
                                                   deadline - std::chrono::steady_clock::now())));
    wait = std::min(wait * 2, std::chrono::milliseconds(200));
  }
}
}  // namespace

PlanProgress Queue::wait_plan(int64_t plan_id, std::chrono::milliseconds timeout) {
  PlanProgress p;
  poll(timeout, [&] { return (p = plan_progress(plan_id)).done(); });
  return p;
}

std::optional<Task> Queue::wait(int64_t task_id, std::chrono::milliseconds timeout) {
  std::optional<Task> t;
  poll(timeout, [&] { return !(t = get(task_id)) || is_finished(t->status); });
  return t;
}

}  // namespace strata::workflow
