// What a Hub and the Runs it made share: the connection (one at a time, under `mu`), the
// options, the loaded-model cache and the counters.
#pragma once
#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "database.hpp"
#include "model_cache.hpp"
#include "strata/hub/hub.hpp"

namespace strata::hub::detail {

struct HubState {
  HubState(std::unique_ptr<Database> database, HubOptions opts, std::string redacted_url)
      : db(std::move(database)), options(std::move(opts)), url(std::move(redacted_url)), cache(options.cache_bytes) {}

  std::mutex mu;
  std::unique_ptr<Database> db;
  HubOptions options;
  std::string url;
  ModelCache cache;
  HubStats stats;

  // The current project's id; with `create`, inside a write transaction, made if missing.
  std::optional<int64_t> project_id(bool create);
  void set_project(const std::string& name) {
    options.project = name;
    project_id_.reset();
  }

 private:
  std::optional<int64_t> project_id_;  // only ever a committed id
};

// How other parts of the library (the workflow's queue) reach a Hub's connection.
struct HubAccess {
  static std::shared_ptr<HubState> state(const Hub& hub) { return hub.state_; }
};

inline double unix_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace strata::hub::detail
