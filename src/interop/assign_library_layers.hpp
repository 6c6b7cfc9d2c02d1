// load_library_weights' second half, for a file already read (interop::load_keras_model reads the
// weights out of a .keras archive itself).
#pragma once
#include <string>
#include <vector>

#include "strata/interop/weight_files.hpp"

namespace strata::interop {

// Whether `layers` are a Keras 3 file's objects ("layers/dense", ...) as io::load_hdf5_weights reads them.
bool is_keras3_layout(const std::vector<io::LayerWeights>& layers);

// `layers` as read from `path` (io::load_hdf5_weights, io::layers_of(load_npz)) into `model`.
size_t assign_library_layers(nn::Layer& model, std::vector<io::LayerWeights> layers, const std::string& path,
                             Library lib, bool by_name);

}  // namespace strata::interop
