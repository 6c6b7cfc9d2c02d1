// A whole-model file (nn::Model::load): safetensors whose metadata holds the architecture JSON,
// rebuilt into layers, whose weights then load by name.
#include "fuzz_input.hpp"
#include "strata/nn/model.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string& path = strata::fuzz::input_file(data, size, ".safetensors");
  strata::fuzz::read_or_refuse([&] {
    for (const auto& [name, weight] : strata::nn::Model::load(path)->named_weights())
      strata::fuzz::use_every_byte(weight);
  });
  return 0;
}
