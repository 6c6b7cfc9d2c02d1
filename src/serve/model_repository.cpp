#include "strata/serve/model_repository.hpp"

#include <iostream>

#include "strata/serve/request_error.hpp"

namespace strata::serve {
namespace {

// The version `spec` should serve now: the newest, or the best by its metric (nothing when no
// version has that metric).
std::optional<int64_t> wanted_version(hub::Hub& hub, const ModelSpec& spec) {
  if (spec.best_by.empty()) {
    const auto info = hub.model_info(spec.name);
    return info ? std::optional(info->version) : std::nullopt;
  }
  std::optional<int64_t> best;
  double best_value = 0;
  constexpr int64_t kPage = 1000;
  for (int64_t offset = 0;; offset += kPage) {
    const auto versions = hub.list_models(spec.name, {.limit = kPage, .offset = offset});  // newest first
    for (const auto& v : versions) {
      const auto it = v.meta.metrics.find(spec.best_by);
      if (it == v.meta.metrics.end()) continue;
      const bool better = spec.order == hub::Order::descending ? it->second > best_value : it->second < best_value;
      if (!best || better) best = v.version, best_value = it->second;  // strict: ties keep the newer
    }
    if (static_cast<int64_t>(versions.size()) < kPage) return best;
  }
}

}  // namespace

ModelSpec parse_model_spec(const std::string& text) {
  for (const auto& [suffix, order] : {std::pair{"@max:", hub::Order::descending}, std::pair{"@min:", hub::Order::ascending}}) {
    const size_t at = text.rfind(suffix);
    if (at == std::string::npos) continue;
    ModelSpec spec{.name = text.substr(0, at), .best_by = text.substr(at + 5), .order = order};
    STRATA_CHECK(!spec.name.empty() && !spec.best_by.empty(), "serve: expected --model NAME", suffix,
                 "METRIC with a name and a metric, got '", text, "'");
    return spec;
  }
  const hub::VersionRef ref = hub::parse_version_ref(text);
  STRATA_CHECK(!ref.name.empty(), "serve: expected --model NAME[:VERSION], got '", text, "'");
  return {.name = ref.name, .version = ref.version};
}

ModelRepository::ModelRepository(const std::string& hub_url, const std::vector<ModelSpec>& models, int replicas)
    : hub_(hub::Hub::open(hub_url)), replicas_(replicas) {
  STRATA_CHECK(!models.empty(), "serve: name at least one model to serve (--model NAME[:VERSION])");
  for (const auto& spec : models) {
    for (const Slot& slot : slots_)
      STRATA_CHECK(!(spec.follows() && slot.spec.follows() && slot.spec.name == spec.name), "serve: model '", spec.name,
                   "' is followed twice (by its latest and by a metric, or twice by a metric): name one");
    int64_t version = spec.version;
    if (!spec.best_by.empty()) {
      const auto best = wanted_version(hub_, spec);
      STRATA_CHECK(best.has_value(), "serve: no version of model '", spec.name, "' has the metric '", spec.best_by, "'");
      version = *best;
    }
    slots_.push_back({spec, load(spec.name, version)});
  }
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
    if (slot.spec.name != name) continue;
    served += (served.empty() ? "" : ", ") + std::to_string(slot.current->version);
    if (version ? slot.current->version == *version : (found == nullptr || slot.spec.follows())) found = &slot;
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

std::shared_ptr<const ServedVersion> ModelRepository::load(const std::string& name, int64_t version) {
  {
    std::lock_guard lock(mutex_);
    for (const Slot& slot : slots_)
      if (slot.current->name == name && slot.current->version == version) return slot.current;
  }
  return load_served_version(hub_, name, version, replicas_);
}

void ModelRepository::refresh() {
  for (size_t i = 0; i < slots_.size(); ++i) {
    // Only this thread changes `current` and `last_failed_version`: reading them unlocked is safe.
    Slot& slot = slots_[i];
    if (!slot.spec.follows()) continue;
    int64_t wanted = 0;
    try {
      const auto version = wanted_version(hub_, slot.spec);
      // The latest only moves forward; the best may move back (its version deleted).
      if (!version || *version == slot.current->version || *version == slot.last_failed_version) continue;
      if (slot.spec.best_by.empty() && *version < slot.current->version) continue;
      wanted = *version;
      auto loaded = load(slot.spec.name, wanted);
      std::lock_guard lock(mutex_);
      slot.current = std::move(loaded);
      std::cerr << "strata serve: now serving '" << slot.spec.name << "' version " << wanted << std::endl;
    } catch (const std::exception& e) {
      if (wanted != 0) slot.last_failed_version = wanted;
      std::cerr << "strata serve: keeping '" << slot.spec.name << "' version " << slot.current->version << ": "
                << e.what() << std::endl;
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
