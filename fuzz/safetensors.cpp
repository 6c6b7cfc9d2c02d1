// safetensors bytes (io::from_safetensors): the header's JSON, dtypes, shapes and offsets.
#include <string_view>

#include "fuzz_input.hpp"
#include "strata/io/safetensors.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  strata::fuzz::read_or_refuse([&] {
    const auto file = strata::io::from_safetensors(std::string_view(reinterpret_cast<const char*>(data), size));
    for (const auto& [name, tensor] : file.tensors) strata::fuzz::use_every_byte(tensor);
  });
  return 0;
}
