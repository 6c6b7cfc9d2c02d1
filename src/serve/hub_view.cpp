#include "hub_view.hpp"

#include <map>

#include "strata/hub/stored_json.hpp"
#include "strata/serve/request_error.hpp"
#include "strata/workflow/queue.hpp"

namespace strata::serve {

using nlohmann::json;

namespace {

json listing(json rows, size_t got) {
  return {{"rows", std::move(rows)}, {"truncated", got >= static_cast<size_t>(HubView::kRows)}};
}

}  // namespace

HubView::HubView(const std::string& hub_url) : hub_(hub::Hub::open(hub_url)) {}

hub::Hub& HubView::in_project(const std::string& project) {
  hub_.set_project(project.empty() ? "default" : project);
  return hub_;
}

json HubView::projects() {
  std::lock_guard lock(mu_);
  return {{"projects", hub_.list_projects()}};
}

json HubView::models(const std::string& project) {
  std::lock_guard lock(mu_);
  const auto versions = in_project(project).list_models("", {.limit = kRows, .offset = 0});
  std::map<std::string, json> by_name;  // names in order; versions newest first, as listed
  for (const auto& v : versions)
    by_name[v.name].push_back({{"version", v.version}, {"created_at", v.created_at}, {"metrics", v.meta.metrics},
                               {"tags", v.meta.tags}, {"size_bytes", v.size_bytes},
                               {"run_id", v.meta.run_id ? json(*v.meta.run_id) : json()}});
  json rows = json::array();
  for (auto& [name, list] : by_name) rows.push_back({{"name", name}, {"versions", std::move(list)}});
  return listing(std::move(rows), versions.size());
}

json HubView::runs(const std::string& project) {
  std::lock_guard lock(mu_);
  const auto runs = in_project(project).list_runs({.limit = kRows, .offset = 0});
  json rows = json::array();
  for (const auto& r : runs)
    rows.push_back({{"id", r.id}, {"name", r.name}, {"status", r.status}, {"created_at", r.created_at},
                    {"finished_at", r.finished_at}});
  return listing(std::move(rows), runs.size());
}

json HubView::run(int64_t run_id) {
  std::lock_guard lock(mu_);
  const auto info = hub_.run_info(run_id);
  if (!info) throw RequestError(404, "no run " + std::to_string(run_id));
  json series = json::array();
  auto listed = hub_.metric_series(run_id, kSeries + 1);
  const bool series_truncated = static_cast<int64_t>(listed.size()) > kSeries;
  if (series_truncated) listed.pop_back();
  for (const auto& [name, split] : listed) {
    // A chart has fewer pixels than a long series has points, and the page asks again every few
    // seconds: a series is read as a sample of about kPoints points.
    const hub::MetricSample sample = hub_.metric_sample(run_id, name, split, kPoints);
    json steps = json::array(), values = json::array();
    for (const auto& point : sample.points) {
      steps.push_back(point.step);
      values.push_back(point.value);
    }
    series.push_back({{"name", name}, {"split", hub::split_name(split)}, {"steps", steps}, {"values", values},
                      {"thinned", sample.thinned}});
  }
  // The newest events, so that a run's page keeps showing what it logs last while it trains.
  auto latest = hub_.latest_events(run_id, kRows + 1);
  const bool events_truncated = static_cast<int64_t>(latest.size()) > kRows;
  if (events_truncated) latest.erase(latest.begin());
  json events = json::array();
  for (const auto& e : latest)
    events.push_back({{"kind", e.kind}, {"payload", hub::stored_json(e.payload)}, {"time", e.time}});
  return {{"id", info->id}, {"name", info->name}, {"status", info->status}, {"config", hub::stored_json(info->config)},
          {"created_at", info->created_at}, {"finished_at", info->finished_at}, {"series", series},
          {"series_truncated", series_truncated}, {"events", events}, {"events_truncated", events_truncated}};
}

json HubView::datasets(const std::string& project) {
  std::lock_guard lock(mu_);
  const auto list = in_project(project).find_datasets("", {.limit = kRows, .offset = 0});
  json rows = json::array();
  for (const auto& d : list)
    rows.push_back({{"name", d.name}, {"version", d.version}, {"kind", d.kind == hub::DatasetKind::files ? "files" : "tensors"},
                    {"entries", d.entries}, {"size_bytes", d.size_bytes}, {"created_at", d.created_at},
                    {"description", d.meta.description}});
  return listing(std::move(rows), list.size());
}

json HubView::plans(const std::string& project) {
  std::lock_guard lock(mu_);
  workflow::Queue queue(in_project(project));
  const auto tasks = queue.list({.limit = kRows});
  std::map<int64_t, json> by_plan;  // 0: tasks submitted alone
  for (const auto& t : tasks)
    by_plan[t.plan_id.value_or(0)].push_back(
        {{"id", t.id}, {"name", t.name}, {"kind", t.kind}, {"status", std::string(workflow::to_string(t.status))},
         {"attempts", t.attempts}, {"worker", t.worker}, {"model", t.model}, {"input_dataset", t.input_dataset},
         {"output_dataset", t.output_dataset}, {"error", t.error}});
  json rows = json::array();
  for (auto& [plan_id, plan_tasks] : by_plan) {
    json counts = json::object();
    for (const auto& t : plan_tasks) counts[t["status"].get<std::string>()] = counts.value(t["status"].get<std::string>(), 0) + 1;
    const std::string name = plan_id == 0 ? "" : queue.plan_progress(plan_id).name;
    rows.push_back({{"id", plan_id}, {"name", name}, {"counts", counts}, {"tasks", std::move(plan_tasks)}});
  }
  return listing(std::move(rows), tasks.size());
}

}  // namespace strata::serve
