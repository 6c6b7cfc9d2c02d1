// The pickle of an object array, as found under "params" in TensorLayer's .npz (io::unpickle_arrays).
#include <string_view>

#include "fuzz_input.hpp"
#include "strata/io/pickle.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  strata::fuzz::read_or_refuse([&] {
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    for (const auto& tensor : strata::io::unpickle_arrays(bytes, "fuzz")) strata::fuzz::use_every_byte(tensor);
  });
  return 0;
}
