// Static models in the hub: saved with their architecture (nn::Model::to_json) as the version's
// architecture, so that loading a version gives a ready model with its weights, no user code.
// This lives in lifecycle, above nn and hub: the hub depends on core and io only and stores the
// JSON as text.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "strata/hub/hub.hpp"
#include "strata/nn/model.hpp"

namespace strata::lifecycle {

// A new version of `name` holding model.named_weights(). Unless meta.architecture is given, it
// is the model's architecture JSON for a static nn::Model and the layer's kind otherwise (a
// dynamic Module's class is C++ code). Throws (before storing anything) when a static model
// cannot be described (an unregistered layer class or function).
int64_t save_model(hub::Hub& hub, const std::string& name, const nn::Layer& model, hub::ModelMeta meta = {});

// The architecture a version would be stored with (see save_model).
std::string architecture_of(const nn::Layer& model);

struct HubModel {
  hub::ModelInfo info;
  std::shared_ptr<nn::Model> model;  // rebuilt from the architecture, the version's weights in it
};

// A loaded version as a static model. Throws strata::Error naming the model and version when
// its architecture is not a static model's (a dynamic model: load its weights into an instance
// with nn::assign_weights_by_name) or its weights do not fit it.
std::shared_ptr<nn::Model> static_model(const hub::LoadedModel& loaded);
HubModel load_static_model(hub::Hub& hub, const std::string& name, int64_t version = hub::kLatest);
// Hub::find_top_model, ready to run. Nothing when no version has the metric.
std::optional<HubModel> find_top_static_model(hub::Hub& hub, const std::string& name, const std::string& metric,
                                              hub::Order order = hub::Order::descending,
                                              const hub::ModelFilter& filter = {});

}  // namespace strata::lifecycle
