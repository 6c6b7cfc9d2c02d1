// A model architecture (nn::Model::from_json), the JSON a whole-model file carries in its
// metadata, fuzzed directly: mutating it inside a file mostly breaks the file around it.
#include <string>

#include "fuzz_input.hpp"
#include "strata/nn/model.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  strata::fuzz::read_or_refuse([&] {
    const auto model = strata::nn::Model::from_json(std::string(reinterpret_cast<const char*>(data), size));
    for (const auto& [name, weight] : model->named_weights()) strata::fuzz::use_every_byte(weight);
  });
  return 0;
}
