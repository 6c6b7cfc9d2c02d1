// Keras's and TensorLayer 2's layer names, weight names and weight orders, from Strata's and back.
#include "strata/interop/weight_files.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "assign_library_layers.hpp"
#include "strata/core/error.hpp"
#include "strata/io/keras.hpp"
#include "strata/io/npz.hpp"
#include "strata/nn/load_weights.hpp"

namespace strata::interop {
namespace {

using nn::Layer;

bool is_recurrent(const std::string& kind) { return kind == "lstm" || kind == "gru" || kind == "simple_rnn"; }

// Keras's default-name prefix for a Strata layer kind (its class name in snake case).
std::string keras_class(const std::string& kind) {
  static const std::map<std::string, std::string> names = {
      {"batchnorm", "batch_normalization"}, {"batchnorm1d", "batch_normalization"},
      {"layernorm", "layer_normalization"}, {"deconv2d", "conv2d_transpose"},
      {"depthwiseconv2d", "depthwise_conv2d"}, {"separableconv2d", "separable_conv2d"},
      {"maxpool2d", "max_pooling2d"},       {"meanpool2d", "average_pooling2d"}};
  const auto it = names.find(kind);
  return it == names.end() ? kind : it->second;
}

// n when `name` is the default "<kind>_<n>", else 0.
int default_number(const std::string& name, const std::string& kind) {
  if (name.size() <= kind.size() + 1 || name.compare(0, kind.size() + 1, kind + "_") != 0) return 0;
  const std::string digits = name.substr(kind.size() + 1);
  if (digits.size() > 9 || !std::all_of(digits.begin(), digits.end(), ::isdigit) || digits[0] == '0') return 0;
  return std::stoi(digits);
}

// A weight's own name (Strata's, after "<layer>/") in the library's terms.
std::string library_weight(const std::string& own, const std::string& kind, Library lib, const std::string& layer) {
  if (is_recurrent(kind)) {
    STRATA_CHECK(own.find('/') == std::string::npos, "layer '", layer, "': the stacked recurrent weight '", own,
                 "' has no place in a ", lib == Library::keras ? "Keras" : "TensorLayer 2",
                 " file (one layer per recurrent layer there)");
    if (lib == Library::tensorlayer2) return own;
    return (kind == "simple_rnn" ? std::string("simple_rnn_cell") : kind + "_cell") + "/" + own;
  }
  if (lib == Library::keras) {
    if (own == "W") return kind == "depthwiseconv2d" ? "depthwise_kernel" : "kernel";
    if (own == "b") return "bias";
    if (own == "depthwise_W") return "depthwise_kernel";
    if (own == "pointwise_W") return "pointwise_kernel";
    if (own == "moving_var") return "moving_variance";
    return own;
  }
  const bool conv = kind.rfind("conv", 0) == 0 || kind.rfind("deconv", 0) == 0;
  if (own == "W" && kind == "dense") return "weights";
  if (own == "W" && conv) return "filters";
  if (own == "b" && (kind == "dense" || conv)) return "biases";
  return own;
}

void collect_leaves(const Layer& layer, std::vector<const Layer*>& out) {
  if (layer.children().empty()) {
    if (std::find(out.begin(), out.end(), &layer) == out.end()) out.push_back(&layer);
    return;
  }
  for (const Layer* c : layer.children()) collect_leaves(*c, out);
}

bool is_h5(const std::string& path) {
  const size_t dot = path.rfind('.');
  const std::string ext = dot == std::string::npos ? "" : path.substr(dot);
  return ext == ".h5" || ext == ".hdf5" || ext == ".keras_weights" || ext == ".keras";
}

// Keras 3 calls a recurrent layer's cell "<class>_cell" and keeps its variables under "cell".
std::string keras3_cell_name(const std::string& kind) { return kind + "_cell"; }

// Where Keras 3 keeps each layer's variables: not under its name, but under its class in snake
// case, numbered among the model's layers of that class in model.layers order ("layers/dense",
// "layers/dense_1", "layers/batch_normalization"; Keras's saving_lib, _save_container_state).
// Strata's leaf layers are in call order, which is Keras's order for a functional model.
std::vector<std::string> keras3_paths(const std::vector<const Layer*>& leaves) {
  std::map<std::string, int> seen;
  std::vector<std::string> paths;
  for (const Layer* l : leaves) {
    const std::string cls = keras_class(l->kind());
    const int n = seen[cls]++;
    paths.push_back("layers/" + (n == 0 ? cls : cls + "_" + std::to_string(n)));
  }
  return paths;
}

// A Keras 3 file's objects ("layers/dense", "layers/lstm/cell") as Keras 2's layers: the
// variables of the model's layer at that path (its own, then its cell's) take, in order, the
// names library_layers gives that layer, since Keras 3 makes them in Keras 2's order.
std::vector<io::LayerWeights> keras3_as_keras2(const std::vector<io::LayerWeights>& objects, const Layer& model,
                                               const std::string& path) {
  const std::vector<std::string> paths = keras3_paths(leaf_layers(model));
  std::vector<io::LayerWeights> expected = library_layers(model, Library::keras);
  std::vector<io::LayerWeights> out;
  std::map<size_t, size_t> placed;  // the model's layer -> its place in `out`
  for (const auto& o : objects) {
    const std::string owner = o.layer.ends_with("/cell") ? o.layer.substr(0, o.layer.size() - 5) : o.layer;
    STRATA_CHECK(owner.find('/', std::string("layers/").size()) == std::string::npos, path, ": Keras 3 object '",
                 o.layer, "' is not a layer or a recurrent layer's cell (nested models and wrappers are not read)");
    const size_t i = static_cast<size_t>(std::find(paths.begin(), paths.end(), owner) - paths.begin());
    STRATA_CHECK(i < paths.size(), path, ": Keras 3 keeps '", owner, "', which is none of ", model.name(),
                 "'s layers (Keras 3 places a layer by its class and its number among the layers of that class)");
    if (!placed.count(i)) {
      placed[i] = out.size();
      out.push_back({expected[i].layer, {}});
    }
    io::LayerWeights& l = out[placed[i]];
    const auto& names = expected[i].weights;
    for (const auto& w : o.weights) {
      STRATA_CHECK(l.weights.size() < names.size(), path, ": Keras 3's '", owner, "' has more than the ", names.size(),
                   " weights of ", model.name(), "'s layer ", l.layer);
      l.weights.emplace_back(names[l.weights.size()].first, w.second);
    }
  }
  for (const auto& [i, at] : placed)
    STRATA_CHECK(out[at].weights.size() == expected[i].weights.size(), path, ": Keras 3's '", paths[i], "' has ",
                 out[at].weights.size(), " weights, ", model.name(), "'s layer ", expected[i].layer, " has ",
                 expected[i].weights.size());
  return out;
}

}  // namespace

std::string library_layer_name(const Layer& layer, Library lib) {
  const int n = default_number(layer.name(), layer.kind());
  if (n == 0) return layer.name();
  if (lib == Library::tensorlayer2) return (is_recurrent(layer.kind()) ? "rnn" : layer.kind()) + "_" + std::to_string(n);
  const std::string base = keras_class(layer.kind());
  return n == 1 ? base : base + "_" + std::to_string(n - 1);
}

std::vector<std::string> library_layer_names(const std::vector<const Layer*>& layers, Library lib) {
  std::vector<std::string> names;
  std::set<std::string> seen;
  bool clash = false;
  for (const Layer* l : layers) {
    names.push_back(library_layer_name(*l, lib));
    clash = clash || !seen.insert(names.back()).second;
  }
  if (clash)
    for (size_t i = 0; i < layers.size(); ++i) names[i] = layers[i]->name();
  return names;
}

std::vector<const Layer*> leaf_layers(const Layer& model) {
  std::vector<const Layer*> out;
  collect_leaves(model, out);
  return out;
}

std::vector<io::LayerWeights> library_layers(const Layer& model, Library lib) {
  std::vector<io::LayerWeights> out;
  if (lib == Library::tensorlayer2) out.push_back({"_inputlayer_1", {}});
  const std::vector<const Layer*> leaves = leaf_layers(model);
  const std::vector<std::string> names = library_layer_names(leaves, lib);
  for (size_t i = 0; i < leaves.size(); ++i) {
    const Layer* l = leaves[i];
    io::LayerWeights lw{names[i], {}};
    const std::string prefix = l->name() + "/";
    for (const auto& [name, t] : l->named_weights()) {
      const std::string own = name.compare(0, prefix.size(), prefix) == 0 ? name.substr(prefix.size()) : name;
      lw.weights.emplace_back(lw.layer + "/" + library_weight(own, l->kind(), lib, l->name()) + ":0", t);
    }
    // Keras creates a norm layer's gamma before its beta (Strata and TensorLayer: beta first),
    // and its h5 loader assigns by position.
    if (lib == Library::keras) {
      auto ends = [](const std::string& s, const std::string& tail) {
        return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
      };
      auto beta = std::find_if(lw.weights.begin(), lw.weights.end(), [&](auto& w) { return ends(w.first, "/beta:0"); });
      auto gamma = std::find_if(lw.weights.begin(), lw.weights.end(), [&](auto& w) { return ends(w.first, "/gamma:0"); });
      if (beta != lw.weights.end() && gamma != lw.weights.end() && beta < gamma) std::rotate(beta, gamma, gamma + 1);
    }
    out.push_back(std::move(lw));
  }
  return out;
}

void save_keras_hdf5(const Layer& model, const std::string& path) {
  // Without keras_version, Keras takes the file for a Keras 1 file and converts its weights.
  io::save_hdf5_weights(path, library_layers(model, Library::keras),
                        {{"backend", "tensorflow"}, {"keras_version", "2.13.1"}});
}

void save_keras3_weights(const Layer& model, const std::string& path) {
  std::vector<io::Keras3Object> objects{{"", model.name(), {}}};
  const std::vector<const Layer*> leaves = leaf_layers(model);
  const std::vector<std::string> paths = keras3_paths(leaves);
  const std::vector<io::LayerWeights> layers = library_layers(model, Library::keras);
  for (size_t i = 0; i < leaves.size(); ++i) {
    std::vector<Tensor> vars;
    for (const auto& w : layers[i].weights) vars.push_back(w.second);
    const std::string& group = paths[i];
    if (is_recurrent(leaves[i]->kind())) {
      objects.push_back({group, layers[i].layer, {}});
      objects.push_back({group + "/cell", keras3_cell_name(leaves[i]->kind()), std::move(vars)});
    } else {
      objects.push_back({group, layers[i].layer, std::move(vars)});
    }
  }
  io::save_keras3_hdf5(path, objects);
}

void save_tl2_hdf5(const Layer& model, const std::string& path) {
  io::save_hdf5_weights(path, library_layers(model, Library::tensorlayer2));
}

void save_tl2_npz_dict(const Layer& model, const std::string& path) {
  io::NamedTensors all;
  for (const auto& l : library_layers(model, Library::tensorlayer2))
    all.insert(all.end(), l.weights.begin(), l.weights.end());
  io::save_npz(path, all);
}

void save_tl2_npz(const Layer& model, const std::string& path) { io::save_npz_list(path, model.all_weights()); }

bool is_keras3_layout(const std::vector<io::LayerWeights>& layers) {
  return !layers.empty() && layers.front().layer.rfind("layers/", 0) == 0;
}

size_t load_library_weights(Layer& model, const std::string& path, Library lib, bool by_name) {
  return assign_library_layers(model, is_h5(path) ? io::load_hdf5_weights(path) : io::layers_of(io::load_npz(path)),
                               path, lib, by_name);
}

size_t assign_library_layers(Layer& model, std::vector<io::LayerWeights> layers, const std::string& path, Library lib,
                             bool by_name) {
  if (is_keras3_layout(layers)) {
    STRATA_CHECK(lib == Library::keras && by_name, path,
                 ": a Keras 3 file is read as Keras's, by name (Keras 3 finds layers by class and number)");
    layers = keras3_as_keras2(layers, model, path);
  }
  const io::NamedTensors weights = io::strata_weights(layers);
  if (!by_name) {
    nn::assign_weights(model, weights);
    return weights.size();
  }
  // The name the library gives each of the model's layers (library_layer_names) -> its own name;
  // and the library names two of its layers would share (then both keep their own names).
  std::map<std::string, std::string> strata_name;
  std::set<std::string> seen, ambiguous;
  const std::vector<const Layer*> leaves = leaf_layers(model);
  const std::vector<std::string> names = library_layer_names(leaves, lib);
  for (size_t i = 0; i < leaves.size(); ++i) {
    strata_name.emplace(names[i], leaves[i]->name());
    const std::string theirs = library_layer_name(*leaves[i], lib);
    if (!seen.insert(theirs).second) ambiguous.insert(theirs);
  }
  io::NamedTensors renamed;
  for (const auto& [name, t] : weights) {
    const size_t slash = name.find('/');
    const std::string layer = name.substr(0, slash);
    const auto it = strata_name.find(layer);
    STRATA_CHECK(it != strata_name.end() || !ambiguous.count(layer), path, ": layer '", layer, "' could be several of ",
                 model.name(), "'s layers (name them, or load by order)");
    renamed.emplace_back((it == strata_name.end() ? layer : it->second) + name.substr(slash), t);
  }
  return nn::assign_weights_by_name(model, renamed);
}

}  // namespace strata::interop
