// A whole Keras model (Keras 3's model.save("x.keras"), Keras 2's model.save("x.h5")) as a Strata
// static model: the architecture (the archive's config.json, the file's model_config) becomes
// Strata's own model JSON (nn::Model::from_json, with its bounds on nesting and weight bytes), and
// the weights load by where the file keeps them.
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

// The Strata model JSON (nn::Model::from_json's input) for a Keras model's architecture (Keras 3's
// config.json, keras_major 3; Keras 2's model_config, 2: their formats and some definitions
// differ); `what` names the file in errors.
std::string keras_config_to_strata_json(const std::string& config_json, const std::string& what, int keras_major = 3);

}  // namespace strata::interop
