#include "strata/interop/pretrained.hpp"

#include <cctype>
#include <set>

#include "strata/io/keras.hpp"
#include "strata/io/npz.hpp"
#include "strata/nn/load_weights.hpp"

namespace strata::interop {
namespace {

using nn::Layer;

size_t by_order(Layer& model, const std::string& path) {
  std::vector<Tensor> weights = io::load_npz_list(path);
  const size_t n = model.all_weights().size();
  STRATA_CHECK(weights.size() >= n, path, ": holds ", weights.size(), " weights, ", model.name(), " has ", n);
  weights.resize(n);
  nn::assign_weights(model, weights);
  return n;
}

// Keras's applications name VGG's convolutions block<b>_conv<c>; TensorLayer and the zoo name
// them conv<b>_<c> (zoo/vgg.hpp). A file weight of the Keras name goes to the zoo's weight when
// the model has no weight of the Keras name itself. Other names are kept.
std::string zoo_name_of(const std::string& file_name, const std::set<std::string>& model_names) {
  const std::string& n = file_name;
  const bool keras_vgg = n.size() > 12 && n.starts_with("block") && std::isdigit(static_cast<unsigned char>(n[5])) &&
                         n.compare(6, 5, "_conv") == 0 && std::isdigit(static_cast<unsigned char>(n[11]));
  if (!keras_vgg || model_names.count(n)) return n;
  return "conv" + n.substr(5, 1) + "_" + n.substr(11);
}

size_t by_name(Layer& model, const std::string& path) {
  std::set<std::string> model_names;
  for (const auto& [name, t] : model.named_weights()) model_names.insert(name);
  io::NamedTensors weights = io::load_keras_weights(path);
  for (auto& [name, t] : weights) name = zoo_name_of(name, model_names);
  const size_t assigned = nn::assign_weights_by_name(model, weights, /*skip_unknown=*/true);
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

}  // namespace strata::interop
