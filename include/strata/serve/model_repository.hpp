// ModelRepository: the hub models a server serves, by name. A model named without a version
// follows the hub's latest: a poll loads a newer version and swaps it in, while requests already
// holding the older one finish on it. A model named NAME:VERSION stays at that version; one named
// NAME@max:METRIC (or @min:) follows the version with the highest (lowest) METRIC the same way.
#pragma once
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "strata/hub/hub.hpp"
#include "strata/serve/served_version.hpp"

namespace strata::serve {

// A model as --model names it: "NAME" (the latest), "NAME:VERSION" (pinned), "NAME@max:METRIC" or
// "NAME@min:METRIC" (the version whose ModelMeta::metrics[METRIC] is highest or lowest; ties go to
// the newest; versions without the metric are not candidates).
struct ModelSpec {
  std::string name{};
  int64_t version = hub::kLatest;  // pinned when not kLatest
  std::string best_by{};           // non-empty: follows the best version by this metric
  hub::Order order = hub::Order::descending;

  bool follows() const { return version == hub::kLatest; }
};
// Throws strata::Error for an empty name or metric.
ModelSpec parse_model_spec(const std::string& text);

class ModelRepository {
 public:
  // Opens the hub and loads every model (throws strata::Error naming the first that cannot be
  // served, or a name followed twice). `replicas`: copies of each model, one per batch worker.
  ModelRepository(const std::string& hub_url, const std::vector<ModelSpec>& models, int replicas);
  ~ModelRepository();

  // The served version of `name`: with a version, the one serving exactly that version; without,
  // the one following the latest (else the only one of that name). Throws RequestError 404
  // naming the model and the versions served when there is none.
  std::shared_ptr<const ServedVersion> find(const std::string& name, std::optional<int64_t> version) const;
  // Every model served now, in the order named on the command line.
  std::vector<std::shared_ptr<const ServedVersion>> all() const;

  // Every `interval`, on a thread of its own until destruction, loads the version each followed
  // model should serve (the newest, or the best by its metric) when it is not the one served. A
  // version that fails to load is reported on stderr and skipped; the older one keeps serving.
  void poll_every(std::chrono::milliseconds interval);

 private:
  // The version another --model already serves, shared (one copy in memory, one set of
  // statistics), else loaded from the hub.
  std::shared_ptr<const ServedVersion> load(const std::string& name, int64_t version);
  void refresh();

  struct Slot {
    ModelSpec spec;
    std::shared_ptr<const ServedVersion> current;  // guarded by mutex_
    int64_t last_failed_version = 0;               // not retried at every poll
  };
  hub::Hub hub_;  // used by the constructor, then only by refresh() on the poll thread
  int replicas_;
  mutable std::mutex mutex_;
  std::vector<Slot> slots_;
  std::mutex poll_mutex_;
  std::condition_variable poll_wake_;
  bool stopping_ = false;
  std::thread poller_;
};

}  // namespace strata::serve
