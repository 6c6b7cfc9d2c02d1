// A Keras model's architecture (interop::keras_config_to_strata_json: Keras 3's config.json, or
// Keras 2's model_config for inputs of odd size), then the Strata architecture it becomes
// (nn::Model::from_json, whose bounds then apply): what interop::load_keras_model reads beside the
// weights.
#include <string>

#include "fuzz_input.hpp"
#include "strata/interop/keras_model.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  strata::fuzz::read_or_refuse([&] {
    const std::string config(reinterpret_cast<const char*>(data), size);
    const auto model = strata::nn::Model::from_json(
        strata::interop::keras_config_to_strata_json(config, "fuzz.keras", size % 2 == 1 ? 2 : 3));
    for (const auto& [name, weight] : model->named_weights()) strata::fuzz::use_every_byte(weight);
  });
  return 0;
}
