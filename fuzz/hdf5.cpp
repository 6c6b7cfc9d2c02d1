// An HDF5 weight file in Keras's or TensorLayer's layout (io::load_keras_weights). libhdf5 parses
// the container; Strata reads its attributes, groups and datasets.
//
// libhdf5 itself leaks on some malformed files (memory it allocated and lost, not held by any
// handle), so scripts/fuzz-all runs this target without LeakSanitizer; what Strata could leak,
// an HDF5 object left open on an error path, is checked here instead after every input.
#include <hdf5.h>

#include <cstdio>
#include <cstdlib>

#include "fuzz_input.hpp"
#include "strata/io/keras.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string& path = strata::fuzz::input_file(data, size, ".h5");
  strata::fuzz::read_or_refuse([&] {
    for (const auto& [name, tensor] : strata::io::load_keras_weights(path)) strata::fuzz::use_every_byte(tensor);
  });
  const ssize_t open = H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL);
  if (open != 0) {
    std::fprintf(stderr, "load_keras_weights left %zd HDF5 objects open\n", open);
    std::abort();
  }
  return 0;
}
