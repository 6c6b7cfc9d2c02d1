#include "strata/serve/model_repository.hpp"

#include <iostream>

#include "strata/serve/request_error.hpp"

namespace strata::serve {

ModelRepository::ModelRepository(const std::string& hub_url, const std::vector<hub::VersionRef>& models, int replicas)
    : hub_(hub::Hub::open(hub_url)), replicas_(replicas) {
  STRATA_CHECK(!models.empty(), "serve: name at least one model to serve (--model NAME[:VERSION])");
  for (const auto& ref : models)
    slots_.push_back({ref.name, ref.version == hub::kLatest, load_served_version(hub_, ref.name, ref.version, replicas_)});
}

ModelRepository::~ModelRepository() {
  {
    std::lock_guard lock(poll_mutex_);
    stopping_ = true;
  }
  poll_wake_.notify_all();
  if (poller_.joinable()) poller_.join();
}

std::shared_ptr<const ServedVersion> ModelRepository::find(const std::string& name,
                                                           std::optional<int64_t> version) const {
  std::lock_guard lock(mutex_);
  const Slot* found = nullptr;
  std::string served;
  for (const Slot& slot : slots_) {
    if (slot.name != name) continue;
    served += (served.empty() ? "" : ", ") + std::to_string(slot.current->version);
    if (version ? slot.current->version == *version : (found == nullptr || slot.follows_latest)) found = &slot;
  }
  if (found != nullptr) return found->current;
  if (served.empty()) throw RequestError(404, "unknown model '" + name + "'");
  throw RequestError(404, "model '" + name + "' version " + std::to_string(*version) +
                              " is not served (serving version " + served + ")");
}

std::vector<std::shared_ptr<const ServedVersion>> ModelRepository::all() const {
  std::lock_guard lock(mutex_);
  std::vector<std::shared_ptr<const ServedVersion>> models;
  for (const Slot& slot : slots_) models.push_back(slot.current);
  return models;
}

void ModelRepository::refresh() {
  for (size_t i = 0; i < slots_.size(); ++i) {
    // Only this thread changes `current` and `last_failed_version`: reading them unlocked is safe.
    Slot& slot = slots_[i];
    if (!slot.follows_latest) continue;
    int64_t newest = 0;
    try {
      const auto info = hub_.model_info(slot.name);
      if (!info || info->version <= slot.current->version || info->version == slot.last_failed_version) continue;
      newest = info->version;
      auto loaded = load_served_version(hub_, slot.name, newest, replicas_);
      std::lock_guard lock(mutex_);
      slot.current = std::move(loaded);
      std::cerr << "strata serve: now serving '" << slot.name << "' version " << newest << std::endl;
    } catch (const std::exception& e) {
      if (newest != 0) slot.last_failed_version = newest;
      std::cerr << "strata serve: keeping '" << slot.name << "' version " << slot.current->version << ": " << e.what()
                << std::endl;
    }
  }
}

void ModelRepository::poll_every(std::chrono::milliseconds interval) {
  poller_ = std::thread([this, interval] {
    std::unique_lock lock(poll_mutex_);
    while (!poll_wake_.wait_for(lock, interval, [this] { return stopping_; })) {
      lock.unlock();
      refresh();
      lock.lock();
    }
  });
}

}  // namespace strata::serve
