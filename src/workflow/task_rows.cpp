#include "task_rows.hpp"

#include <algorithm>

namespace strata::workflow::detail {

const char* const kTaskColumns =
    "id, plan_id, name, kind, params, input_dataset, model, output_dataset, priority, tags, status, "
    "attempts, max_attempts, retry_delay, worker, lease_expires_at, result, error, log_tail, created_at, "
    "leased_at, started_at, finished_at";

std::optional<double> optional_real(const Row& r, int c) {
  if (r.is_null(c)) return std::nullopt;
  return r.real(c);
}

Task task_from_row(const Row& r) {
  Task t;
  t.id = r.integer(0);
  if (!r.is_null(1)) t.plan_id = r.integer(1);
  t.name = r.text(2);
  t.kind = r.text(3);
  t.params = r.text(4);
  t.input_dataset = r.text(5);
  t.model = r.text(6);
  t.output_dataset = r.text(7);
  t.priority = r.integer(8);
  t.tags = split_tags(r.text(9));
  t.status = parse_task_status(r.text(10));
  t.attempts = r.integer(11);
  t.max_attempts = r.integer(12);
  t.retry_delay_seconds = r.real(13);
  t.worker = r.text(14);
  t.lease_expires_at = optional_real(r, 15);
  if (!r.is_null(16)) t.result = r.text(16);
  t.error = r.text(17);
  t.log_tail = r.text(18);
  t.created_at = r.real(19);
  t.leased_at = optional_real(r, 20);
  t.started_at = optional_real(r, 21);
  t.finished_at = optional_real(r, 22);
  return t;
}

int64_t cancel_dependents(Database& db, int64_t task_id, const std::string& reason, double now) {
  int64_t count = 0;
  std::vector<int64_t> frontier{task_id};
  while (!frontier.empty()) {
    const int64_t id = frontier.back();
    frontier.pop_back();
    db.query(
        "UPDATE tasks SET status = 'cancelled', error = ?, finished_at = ?, lease_expires_at = NULL "
        "WHERE id IN (SELECT task_id FROM task_deps WHERE depends_on = ?) "
        "AND status IN ('pending', 'leased', 'running') RETURNING id",
        {std::string_view(reason), now, id}, [&](const Row& r) {
          frontier.push_back(r.integer(0));
          ++count;
        });
  }
  return count;
}

std::optional<PlanProgress> read_plan_progress(Database& db, std::optional<int64_t> project, int64_t plan_id) {
  PlanProgress p;
  p.plan_id = plan_id;
  bool found = false;
  db.query("SELECT name FROM plans WHERE id = ? AND project_id = ?", {plan_id, project ? Param(*project) : Param(nullptr)},
           [&](const Row& r) {
             p.name = r.text(0);
             found = true;
           });
  if (!found) return std::nullopt;
  db.query("SELECT status, COUNT(*) FROM tasks WHERE plan_id = ? GROUP BY status", {plan_id},
           [&](const Row& r) { p.counts[static_cast<size_t>(parse_task_status(r.text(0)))] = r.integer(1); });
  db.query("SELECT id FROM tasks WHERE plan_id = ? ORDER BY id", {plan_id},
           [&](const Row& r) { p.task_ids.push_back(r.integer(0)); });
  return p;
}

std::string placeholders(size_t n) {
  std::string out;
  for (size_t i = 0; i < n; ++i) out += i ? ", ?" : "?";
  return out;
}

std::string join_tags(const std::vector<std::string>& tags) {
  const std::vector<std::string> sorted = sorted_distinct(tags);
  std::string out = ",";
  for (const auto& t : sorted) out += t + ",";
  return sorted.empty() ? "" : out;
}

std::vector<std::string> split_tags(const std::string& text) {
  std::vector<std::string> out;
  size_t begin = 0;
  while (begin < text.size()) {
    size_t end = text.find(',', begin);
    if (end == std::string::npos) end = text.size();
    if (end > begin) out.push_back(text.substr(begin, end - begin));
    begin = end + 1;
  }
  return out;
}

}  // namespace strata::workflow::detail
