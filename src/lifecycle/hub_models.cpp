#include "strata/lifecycle/hub_models.hpp"

#include "strata/core/error.hpp"
#include "strata/nn/load_weights.hpp"

namespace strata::lifecycle {

std::string architecture_of(const nn::Layer& model) {
  if (const auto* net = dynamic_cast<const nn::Model*>(&model)) return net->to_json();
  return model.kind();
}

int64_t save_model(hub::Hub& hub, const std::string& name, const nn::Layer& model, hub::ModelMeta meta) {
  if (meta.architecture.empty()) meta.architecture = architecture_of(model);
  return hub.save_model(name, model.named_weights(), meta);
}

std::shared_ptr<nn::Model> static_model(const hub::LoadedModel& loaded) {
  const std::string what = "hub model '" + loaded.info.name + "' version " + std::to_string(loaded.info.version);
  const std::string& arch = loaded.info.meta.architecture;
  STRATA_CHECK(!arch.empty() && arch.front() == '{', what, ": its architecture '", arch.substr(0, 40),
               "' is not a static model's; build the model in code and load the weights with "
               "nn::assign_weights_by_name");
  std::shared_ptr<nn::Model> model;
  try {
    model = nn::Model::from_json(arch);
    const size_t expected = model->named_weights().size();
    const size_t assigned = nn::assign_weights_by_name(*model, loaded.weights);
    STRATA_CHECK(assigned == expected, "the model has ", expected, " weights, the version holds ", assigned,
                 " of them");
  } catch (const Error& e) {
    throw Error(what + ": " + e.what());
  }
  return model;
}

HubModel load_static_model(hub::Hub& hub, const std::string& name, int64_t version) {
  hub::LoadedModel loaded = hub.load_model(name, version);
  auto model = static_model(loaded);
  return {std::move(loaded.info), std::move(model)};
}

std::optional<HubModel> find_top_static_model(hub::Hub& hub, const std::string& name, const std::string& metric,
                                              hub::Order order, const hub::ModelFilter& filter) {
  std::optional<hub::LoadedModel> top = hub.find_top_model(name, metric, order, filter);
  if (!top) return std::nullopt;
  auto model = static_model(*top);
  return HubModel{std::move(top->info), std::move(model)};
}

}  // namespace strata::lifecycle
