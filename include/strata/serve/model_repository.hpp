// ModelRepository: the hub models a server serves, by name. A model named without a version
// follows the hub's latest: a poll loads a newer version and swaps it in, while requests already
// holding the older one finish on it. A model named NAME:VERSION stays at that version.
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

class ModelRepository {
 public:
  // Opens the hub and loads every model (throws strata::Error naming the first that cannot be
  // served). `replicas`: copies of each model, one per batch worker.
  ModelRepository(const std::string& hub_url, const std::vector<hub::VersionRef>& models, int replicas);
  ~ModelRepository();

  // The served version of `name`: with a version, the one serving exactly that version; without,
  // the one following the latest (else the only one of that name). Throws RequestError 404
  // naming the model and the versions served when there is none.
  std::shared_ptr<const ServedVersion> find(const std::string& name, std::optional<int64_t> version) const;
  // Every model served now, in the order named on the command line.
  std::vector<std::shared_ptr<const ServedVersion>> all() const;

  // Every `interval`, on a thread of its own until destruction, loads the newest version of each
  // followed model when it is newer than the one served. A version that fails to load is
  // reported on stderr and skipped; the older one keeps serving.
  void poll_every(std::chrono::milliseconds interval);

 private:
  void refresh();

  struct Slot {
    std::string name;
    bool follows_latest;
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
