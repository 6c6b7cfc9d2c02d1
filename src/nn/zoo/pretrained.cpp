#include "strata/nn/zoo/pretrained.hpp"

#include <set>

#include "strata/io/keras.hpp"
#include "strata/io/npz.hpp"
#include "strata/nn/load_weights.hpp"

namespace strata::nn::zoo {
namespace {

size_t by_order(Layer& model, const std::string& path) {
  std::vector<Tensor> weights = io::load_npz_list(path);
  const size_t n = model.all_weights().size();
  STRATA_CHECK(weights.size() >= n, path, ": holds ", weights.size(), " weights, ", model.name(), " has ", n);
  weights.resize(n);
  assign_weights(model, weights);
  return n;
}

size_t by_name(Layer& model, const std::string& path) {
  const io::NamedTensors weights = io::load_keras_weights(path);
  const size_t assigned = assign_weights_by_name(model, weights, /*skip_unknown=*/true);
  std::set<std::string> in_file;
  for (const auto& [name, t] : weights) in_file.insert(name);
  for (const auto& [name, t] : model.named_weights())
    STRATA_CHECK(in_file.count(name), path, ": has no weight '", name, "' of ", model.name(), " (", assigned, " of ",
                 model.all_weights().size(), " found)");
  return assigned;
}

}  // namespace

size_t load_pretrained(Layer& model, const std::string& path) {
  const bool npz = path.ends_with(".npz"), h5 = path.ends_with(".h5") || path.ends_with(".hdf5");
  STRATA_CHECK(npz || h5, path, ": pretrained weights are a TensorLayer .npz or a Keras .h5 / .hdf5");
  try {
    return npz ? by_order(model, path) : by_name(model, path);
  } catch (const Error& e) {
    // assign_weights names the layer and weight; the user also needs to know which file.
    const std::string what = e.what();
    if (what.find(path) != std::string::npos) throw;
    throw Error(path + ": " + what);
  }
}

}  // namespace strata::nn::zoo
