// A whole Keras 3 model (model.save("x.keras")) as a Strata static model: the architecture in the
// archive's config.json becomes Strata's own model JSON (nn::Model::from_json, with its bounds on
// nesting and weight bytes), and the weights load as interop::load_library_weights loads Keras 3's.
//
//   std::shared_ptr<nn::Model> net = interop::load_keras_model("classifier.keras");
//   Tensor y = (*net)(x);   // == Keras's model(x, training=False), within float32 rounding
//
// Functional and Sequential models of the layers docs/interop.md lists ("Whole Keras 3 models"),
// channels-last; anything else is refused naming the Keras layer and what is not read.
#pragma once
#include <memory>
#include <string>

#include "strata/nn/model.hpp"

namespace strata::interop {

std::shared_ptr<nn::Model> load_keras_model(const std::string& path);

// The Strata model JSON (nn::Model::from_json's input) for a Keras 3 config.json; `what` names
// the file in errors.
std::string keras_config_to_strata_json(const std::string& config_json, const std::string& what);

}  // namespace strata::interop
