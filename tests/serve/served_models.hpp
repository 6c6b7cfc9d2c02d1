// The models the serve tests put in a hub: a small static MLP and CNN with random weights, and
// the in-process predictions the server's answers are compared with.
#pragma once
#include <string>
#include <vector>

#include "strata/autograd/grad_mode.hpp"
#include "strata/core/factory.hpp"
#include "strata/hub/hub.hpp"
#include "strata/lifecycle/hub_models.hpp"
#include "strata/nn/nn.hpp"
#include "strata/ops/elementwise.hpp"

namespace strata::testing {

inline std::shared_ptr<nn::Model> make_served_mlp() {
  auto x = nn::Input({-1, 16}, "features");
  auto h = nn::Dense(32, "relu")(x);
  return std::make_shared<nn::Model>(x, nn::Dense(4)(h), "mlp");
}

inline std::shared_ptr<nn::Model> make_served_cnn() {
  auto x = nn::Input({-1, 8, 8, 1}, "image");
  auto h = nn::Conv2d(4, {3, 3}, "relu")(x);
  h = nn::Flatten()(nn::MaxPool2d({2, 2})(h));
  return std::make_shared<nn::Model>(x, nn::Dense(3)(h), "cnn");
}

// Saves `model` under `name` with fresh random weights (and `meta`'s metrics); returns the version.
inline int64_t save_random_version(hub::Hub& hub, const std::string& name, nn::Model& model, hub::ModelMeta meta = {}) {
  {
    NoGradGuard no_grad;
    for (Tensor w : model.all_weights()) copy_(w, randn(w.shape()));
  }
  return lifecycle::save_model(hub, name, model, std::move(meta));
}

// What `version` of hub model `name` gives for `x`, computed here, not by the server.
inline Tensor predict_in_process(const std::string& hub_path, const std::string& name, int64_t version, const Tensor& x) {
  auto hub = hub::Hub::open(hub_path);
  auto loaded = lifecycle::load_static_model(hub, name, version);
  loaded.model->eval();
  NoGradGuard no_grad;
  return loaded.model->run({x})[0];
}

}  // namespace strata::testing
