// A .npy file (data::read_npy): io's header parser, plus the Fortran-order and big-endian layouts
// that only standalone files take.
#include "fuzz_input.hpp"
#include "strata/data/npy.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string& path = strata::fuzz::input_file(data, size, ".npy");
  strata::fuzz::read_or_refuse([&] { strata::fuzz::use_every_byte(strata::data::read_npy(path)); });
  return 0;
}
