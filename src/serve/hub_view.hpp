// HubView: what the dashboard shows, read from a hub as JSON: projects, models with their
// versions and metrics, runs with their metric series and events, datasets, workflow plans
// with their tasks. Read-only. Lists stop at kRows rows (the newest), and say so ("truncated";
// a run's events: "events_truncated");
// a run shows its first kSeries metric series, each sampled to about kPoints points
// (Hub::metric_sample).
#pragma once
#include <cstdint>
#include <mutex>
#include <string>

#include <nlohmann/json.hpp>

#include "strata/hub/hub.hpp"

namespace strata::serve {

class HubView {
 public:
  static constexpr int64_t kRows = 1000;
  static constexpr int64_t kPoints = 2000;  // per metric series of a run, at most about this many
  static constexpr int64_t kSeries = 200;   // metric series of a run, by name then split: the first this many

  explicit HubView(const std::string& hub_url);

  nlohmann::json projects();
  nlohmann::json models(const std::string& project);
  nlohmann::json runs(const std::string& project);
  // Throws RequestError 404 when there is no such run.
  nlohmann::json run(int64_t run_id);
  nlohmann::json datasets(const std::string& project);
  nlohmann::json plans(const std::string& project);

 private:
  // The hub's current project is per Hub object: each call switches it under this lock.
  hub::Hub& in_project(const std::string& project);
  std::mutex mu_;
  hub::Hub hub_;
};

}  // namespace strata::serve
