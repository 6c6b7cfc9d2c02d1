// A .npz archive (ZIP of .npy) read both ways: by name (io::load_npz) and as TensorLayer's list
// under "params" (io::load_npz_list, a pickled object array). Mutations inside an entry mostly
// fail its CRC, so the pickle target fuzzes the pickle itself.
#include "fuzz_input.hpp"
#include "strata/io/npz.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string& path = strata::fuzz::input_file(data, size, ".npz");
  strata::fuzz::read_or_refuse([&] {
    for (const auto& [name, tensor] : strata::io::load_npz(path)) strata::fuzz::use_every_byte(tensor);
  });
  strata::fuzz::read_or_refuse([&] {
    for (const auto& tensor : strata::io::load_npz_list(path)) strata::fuzz::use_every_byte(tensor);
  });
  return 0;
}
