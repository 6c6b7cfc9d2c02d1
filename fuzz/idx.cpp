// An IDX file, plain or gzip-compressed (data::read_idx): MNIST's and Fashion-MNIST's format.
#include "fuzz_input.hpp"
#include "strata/data/idx.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string& path = strata::fuzz::input_file(data, size, "-idx3-ubyte");
  strata::fuzz::read_or_refuse([&] { strata::fuzz::use_every_byte(strata::data::read_idx(path)); });
  return 0;
}
