// Keras and TensorLayer 2 name a layer's weights differently from Strata (TensorLayer 1's
// W / b); the layouts themselves agree, so only names and one order change here.
#include "strata/io/keras.hpp"

#include <algorithm>
#include <set>

#include "strata/core/error.hpp"

namespace strata::io {
namespace {

struct Rename {
  const char* from;
  const char* to;
};
constexpr Rename kRenames[] = {
    {"kernel", "W"},   {"weights", "W"},        {"filters", "W"},           {"bias", "b"},
    {"biases", "b"},   {"depthwise_kernel", "depthwise_W"}, {"pointwise_kernel", "pointwise_W"},
    {"moving_variance", "moving_var"},
};

std::string without_output_index(const std::string& name) {
  const size_t colon = name.rfind(':');
  if (colon != std::string::npos && colon + 1 < name.size() &&
      std::all_of(name.begin() + static_cast<std::ptrdiff_t>(colon) + 1, name.end(), ::isdigit))
    return name.substr(0, colon);
  return name;
}

}  // namespace

std::string strata_weight_name(const std::string& name) {
  const std::string bare = without_output_index(name);
  const size_t slash = bare.rfind('/');
  const std::string prefix = slash == std::string::npos ? "" : bare.substr(0, slash + 1);
  const std::string own = bare.substr(prefix.size());
  for (const auto& r : kRenames)
    if (own == r.from) return prefix + r.to;
  return bare;
}

NamedTensors strata_weights(const std::vector<LayerWeights>& layers) {
  NamedTensors out;
  std::set<std::string> seen;
  for (const auto& l : layers) {
    const size_t first = out.size();
    for (const auto& [file_name, t] : l.weights) {
      const std::string mapped = strata_weight_name(file_name);
      const size_t slash = mapped.rfind('/');
      // The layer a weight belongs to: its group, unless the name says it is an inner layer's.
      std::string owner = l.layer;
      if (slash != std::string::npos) {
        const std::string prefix = mapped.substr(0, slash);
        const std::string inner = prefix.substr(prefix.rfind('/') == std::string::npos ? 0 : prefix.rfind('/') + 1);
        if (!inner.empty()) owner = inner;
      }
      const std::string name = owner + "/" + mapped.substr(slash == std::string::npos ? 0 : slash + 1);
      STRATA_CHECK(seen.insert(name).second, "strata_weights: two weights map to '", name, "' (layer '", l.layer,
                   "', weight '", file_name, "')");
      out.emplace_back(name, t);
    }
    // Keras stores batch norm as gamma, beta, moving_mean, moving_variance; Strata (and
    // TensorLayer) as beta, gamma, ...: move each layer's beta right before its gamma.
    for (size_t i = first; i < out.size(); ++i) {
      const std::string& n = out[i].first;
      if (n.size() < 6 || n.compare(n.size() - 6, 6, "/gamma") != 0) continue;
      const std::string beta = n.substr(0, n.size() - 5) + "beta";
      for (size_t j = i + 1; j < out.size(); ++j)
        if (out[j].first == beta) {
          std::rotate(out.begin() + static_cast<std::ptrdiff_t>(i), out.begin() + static_cast<std::ptrdiff_t>(j),
                      out.begin() + static_cast<std::ptrdiff_t>(j) + 1);
          break;
        }
    }
  }
  return out;
}

NamedTensors load_keras_weights(const std::string& path) { return strata_weights(load_hdf5_weights(path)); }

}  // namespace strata::io
