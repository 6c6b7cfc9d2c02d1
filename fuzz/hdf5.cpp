// An HDF5 weight file in Keras's or TensorLayer's layout (io::load_keras_weights). libhdf5 parses
// the container in a process of its own (io::run_in_child_process): it overflowed heap buffers
// and asked for gigabytes on files this target made, and each must now be refused with a
// strata::Error while this process goes on (docs/reliability.md).
#include "fuzz_input.hpp"
#include "strata/io/keras.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string& path = strata::fuzz::input_file(data, size, ".h5");
  strata::fuzz::read_or_refuse([&] {
    for (const auto& [name, tensor] : strata::io::load_keras_weights(path)) strata::fuzz::use_every_byte(tensor);
  });
  return 0;
}
