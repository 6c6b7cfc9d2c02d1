// An HDF5 weight file in Keras 2's, Keras 3's or TensorLayer's layout, or a Keras 3 .keras archive
// (io::load_hdf5_weights, then io::strata_weights' names). libhdf5 parses
// the container in a process of its own (io::run_in_child_process): it overflowed heap buffers
// and asked for gigabytes on files this target made, and each must now be refused with a
// strata::Error while this process goes on (docs/reliability.md).
#include "fuzz_input.hpp"
#include "strata/io/keras.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string& path = strata::fuzz::input_file(data, size, ".h5");
  strata::fuzz::read_or_refuse([&] {
    const auto layers = strata::io::load_hdf5_weights(path);
    for (const auto& layer : layers)
      for (const auto& [name, tensor] : layer.weights) strata::fuzz::use_every_byte(tensor);
    for (const auto& [name, tensor] : strata::io::strata_weights(layers)) strata::fuzz::use_every_byte(tensor);
  });
  return 0;
}
