// HDF5 weight files in the layout Keras (save_weights, and model.save's "model_weights"
// group) and TensorLayer (save_weights_to_hdf5) share: a `layer_names` attribute listing the
// layers in order, one group per layer whose `weight_names` attribute lists its datasets.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "strata/io/safetensors.hpp"  // NamedTensors

namespace strata::io {

struct LayerWeights {
  std::string layer;
  NamedTensors weights;  // named as in weight_names ("dense_1/kernel:0"), in that order
};

// The layers in layer_names order, read from "model_weights" when the file has that group
// (a whole Keras model), else from the root; or a Keras 3 file's objects (below). Datasets of
// float (float16 becomes float32), int, uint8 and bool (h5py's enum) types. Throws strata::Error naming the file and
// what is wrong: not HDF5, a missing attribute or group, an unsupported type, or a dataset that declares more data than
// the file can hold. The HDF5 library is not thread-safe: call from one thread at a time.
std::vector<LayerWeights> load_hdf5_weights(const std::string& path);

// Writes TensorLayer's save_weights_to_hdf5 layout (fixed-length byte-string attributes, as
// h5py writes lists of bytes), which tl.files.load_hdf5_to_weights and Keras read.
// `root_attributes` are scalar strings on the root (Keras's keras_version and backend).
void save_hdf5_weights(const std::string& path, const std::vector<LayerWeights>& layers,
                       const std::vector<std::pair<std::string, std::string>>& root_attributes = {});

// Keras 3's .weights.h5 (and the model.weights.h5 inside a .keras archive), which
// load_hdf5_weights reads too: no layer_names; each object that owns variables (the model "",
// a layer "layers/dense", a recurrent layer's cell "layers/lstm/cell") has a group
// "<path>/vars" named by its attribute "name", holding datasets "0", "1", ... in the order the
// object made its variables. load_hdf5_weights returns one LayerWeights per vars group that
// holds datasets: `layer` is the object's path, the weights "<path>/vars/<i>" in i's order.
struct Keras3Object {
  std::string path;  // "" for the model itself
  std::string name;  // the vars group's "name" attribute (Keras: the layer's or cell's name)
  std::vector<Tensor> vars;
};
void save_keras3_hdf5(const std::string& path, const std::vector<Keras3Object>& objects);

// A whole Keras model: a Keras 3 .keras archive (its config.json and the objects of its
// model.weights.h5) or a Keras 2 model.save .h5 (its "model_config" attribute and model_weights'
// layers): the architecture as JSON text and the weights as load_hdf5_weights reads them.
struct KerasArchive {
  std::string config;
  std::vector<LayerWeights> weights;
  bool keras3 = false;  // a .keras archive (else Keras 2's .h5)
};
KerasArchive load_keras_archive(const std::string& path);

// Groups "layer/weight" names (nn::Layer::named_weights) by layer, splitting at the last '/'
// and keeping order; consecutive weights of one layer form one group.
std::vector<LayerWeights> layers_of(const NamedTensors& weights);

}  // namespace strata::io
