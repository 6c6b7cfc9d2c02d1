#include "strata/lifecycle/resume.hpp"

#include <charconv>
#include <optional>
#include <random>
#include <sstream>

#include "strata/core/error.hpp"
#include "strata/core/factory.hpp"
#include "strata/nn/layer.hpp"
#include "strata/nn/load_weights.hpp"
#include "strata/optim/optimizer.hpp"

namespace strata::lifecycle {

namespace {

constexpr const char* kEpoch = "epoch";
constexpr const char* kSeed = "shuffle_seed";
constexpr const char* kRng = "rng_state";
constexpr const char* kOptimizerVersion = "optimizer_version";

// `text` as a whole number >= 0; nothing when it is not one (the hub's rows are input too).
template <class T>
std::optional<T> whole_number(const std::string& text) {
  T value{};
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < 0) return std::nullopt;
  return value;
}

// values[key] as a whole number, or an Error naming the version.
template <class T>
T read_number(const hub::ModelInfo& info, const char* key) {
  const std::string what = "resume_from: hub model '" + info.name + "' version " + std::to_string(info.version);
  const auto it = info.meta.values.find(key);
  STRATA_CHECK(it != info.meta.values.end(), what, " has no training state ('", key,
               "' missing): it was not saved by a ModelCheckpoint with include_optimizer");
  const std::optional<T> value = whole_number<T>(it->second);
  STRATA_CHECK(value.has_value(), what, ": '", key, "' must be a whole number >= 0, got '", it->second, "'");
  return *value;
}

}  // namespace

std::optional<int64_t> checkpoint_epoch(const hub::ModelInfo& info) {
  const auto it = info.meta.values.find(kEpoch);
  return it == info.meta.values.end() ? std::nullopt : whole_number<int64_t>(it->second);
}

std::string optimizer_model_name(const std::string& model_name) { return model_name + "/optimizer"; }

void add_training_state(hub::Hub& hub, const std::string& model_name, const train::TrainingState& state, int64_t epoch,
                        bool include_optimizer, hub::ModelMeta& meta) {
  meta.values[kEpoch] = std::to_string(epoch);
  meta.values[kSeed] = std::to_string(state.seed);
  std::ostringstream rng;
  rng << default_generator().engine();
  meta.values[kRng] = rng.str();
  if (!include_optimizer) return;
  STRATA_CHECK(state.optimizer != nullptr, "ModelCheckpoint: no optimizer to save (outside fit?)");
  hub::ModelMeta optimizer_meta;
  optimizer_meta.architecture = state.optimizer->name();
  optimizer_meta.values = {{"model", model_name}, {kEpoch, meta.values[kEpoch]}};
  optimizer_meta.run_id = meta.run_id;
  const int64_t version =
      hub.save_model(optimizer_model_name(model_name), state.optimizer->named_state(), optimizer_meta);
  meta.values[kOptimizerVersion] = std::to_string(version);
}

hub::ModelInfo resume_from(hub::Hub& hub, const std::string& ref, nn::Layer& model, optim::Optimizer& optimizer,
                           train::FitOptions& options) {
  const hub::VersionRef at = hub::parse_version_ref(ref);
  hub::LoadedModel loaded = hub.load_model(at.name, at.version);
  const hub::ModelInfo& info = loaded.info;
  const auto epoch = read_number<int64_t>(info, kEpoch);
  const auto seed = read_number<uint64_t>(info, kSeed);
  const auto optimizer_version = read_number<int64_t>(info, kOptimizerVersion);
  const auto rng = info.meta.values.find(kRng);
  std::mt19937_64 engine;
  bool rng_ok = rng != info.meta.values.end();
  if (rng_ok) {
    std::istringstream in(rng->second);
    rng_ok = static_cast<bool>(in >> engine);
  }
  STRATA_CHECK(rng_ok, "resume_from: hub model '", info.name, "' version ", info.version, ": '", kRng,
               "' is missing or not a std::mt19937_64 state");

  const hub::LoadedModel state = hub.load_model(optimizer_model_name(at.name), optimizer_version);
  STRATA_CHECK(state.info.meta.architecture == optimizer.name(), "resume_from: hub model '", info.name, "' version ",
               info.version, " was trained with ", state.info.meta.architecture, ", the optimizer given is ",
               optimizer.name());
  const size_t assigned = nn::assign_weights_by_name(model, loaded.weights), expected = model.named_weights().size();
  STRATA_CHECK(assigned == expected, "resume_from: hub model '", info.name, "' version ", info.version, " holds ",
               assigned, " of the model's ", expected, " weights");
  optimizer.load_state(state.weights);
  default_generator().engine() = engine;
  options.initial_epoch = epoch + 1;
  options.seed = seed;
  return info;
}

}  // namespace strata::lifecycle
