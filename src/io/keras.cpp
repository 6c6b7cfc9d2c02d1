// Keras and TensorLayer 2 name a layer's weights differently from Strata (TensorLayer 1's
// W / b); the layouts themselves agree, so only names and one order change here.
#include "strata/io/keras.hpp"

#include <algorithm>
#include <set>

#include "strata/core/error.hpp"
#include "strata/core/factory.hpp"

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

std::string own_name(const std::string& file_name) {
  const std::string bare = without_output_index(file_name);
  const size_t slash = bare.rfind('/');
  return slash == std::string::npos ? bare : bare.substr(slash + 1);
}

// Gate block `from` of each row of a [rows, 4u] matrix (or a [4u] vector), in TensorFlow 1's
// order i, j, f, o, goes to block `to` in Keras's i, f, c, o.
constexpr int kTfToKerasGate[4] = {0, 2, 1, 3};

template <class T>
Tensor reorder_gates(const std::vector<double>& v, int64_t row_begin, int64_t rows, int64_t units, double forget_add,
                     bool vector) {
  std::vector<T> out(static_cast<size_t>(rows * 4 * units));
  for (int64_t r = 0; r < rows; ++r)
    for (int g = 0; g < 4; ++g)
      for (int64_t k = 0; k < units; ++k) {
        const int to = kTfToKerasGate[g];
        double value = v[static_cast<size_t>((row_begin + r) * 4 * units + g * units + k)];
        if (to == 1) value += forget_add;
        out[static_cast<size_t>(r * 4 * units + to * units + k)] = static_cast<T>(value);
      }
  return from_vector(out, vector ? Shape{4 * units} : Shape{rows, 4 * units});
}

// The bias is one row (a vector); a kernel's rows [row_begin, row_begin + rows).
Tensor reorder(const Tensor& t, int64_t row_begin, int64_t rows, int64_t units, double forget_add = 0) {
  const std::vector<double> v = t.to_vector<double>();
  const bool vector = t.dim() == 1;
  return t.dtype() == kFloat64 ? reorder_gates<double>(v, row_begin, rows, units, forget_add, vector)
                               : reorder_gates<float>(v, row_begin, rows, units, forget_add, vector);
}

// A TensorFlow 1 LSTM cell: a "kernel" and a "bias" under ".../lstm_cell/" or
// ".../basic_lstm_cell/", and no recurrent_kernel.
bool is_tf_lstm_cell(const LayerWeights& l) {
  bool kernel = false, bias = false;
  for (const auto& [n, t] : l.weights) {
    const std::string own = own_name(n);
    if (own == "recurrent_kernel") return false;
    const bool in_cell = n.find("lstm_cell/") != std::string::npos;
    kernel = kernel || (in_cell && own == "kernel");
    bias = bias || (in_cell && own == "bias");
  }
  return kernel && bias && l.weights.size() == 2;
}

bool has_weight(const LayerWeights& l, const std::string& own) {
  return std::any_of(l.weights.begin(), l.weights.end(), [&](auto& w) { return own_name(w.first) == own; });
}

bool is_recurrent(const LayerWeights& l) { return has_weight(l, "recurrent_kernel"); }

}  // namespace

NamedTensors tf_lstm_to_keras(const Tensor& kernel, const Tensor& bias, double forget_bias, const std::string& what) {
  STRATA_CHECK(kernel.dim() == 2 && kernel.size(1) % 4 == 0 && bias.dim() == 1 && bias.size(0) == kernel.size(1),
               what, ": a TensorFlow LSTM cell has kernel [in + units, 4 * units] and bias [4 * units], got ",
               kernel.shape().str(), " and ", bias.shape().str());
  const int64_t units = kernel.size(1) / 4, in = kernel.size(0) - units;
  STRATA_CHECK(in > 0, what, ": kernel ", kernel.shape().str(), " has no input rows beside its ", units,
               " recurrent ones");
  STRATA_CHECK(is_floating(kernel.dtype()) && is_floating(bias.dtype()), what, ": expected float weights, got ",
               dtype_name(kernel.dtype()));
  return {{"kernel", reorder(kernel, 0, in, units)},
          {"recurrent_kernel", reorder(kernel, in, units, units)},
          {"bias", reorder(bias, 0, 1, units, forget_bias)}};
}

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
    // Keras 3 numbers a layer's variables ("layers/dense/vars/0"): only the model can name them.
    STRATA_CHECK(l.layer.rfind("layers/", 0) != 0, "strata_weights: '", l.layer,
                 "' is from a Keras 3 file, whose variables are numbered, not named: load it into a model with "
                 "interop::load_library_weights");
    const size_t first = out.size();
    if (is_tf_lstm_cell(l) || is_recurrent(l)) {
      // Recurrent weights keep their own names, under the layer's group.
      NamedTensors own;
      if (is_tf_lstm_cell(l)) {
        const Tensor& a = l.weights[0].second;
        const Tensor& b = l.weights[1].second;
        const bool kernel_first = own_name(l.weights[0].first) == "kernel";
        own = tf_lstm_to_keras(kernel_first ? a : b, kernel_first ? b : a, 1.0, "layer '" + l.layer + "'");
      } else {
        for (const auto& [file_name, t] : l.weights) own.emplace_back(own_name(file_name), t);
      }
      for (auto& [n, t] : own) {
        const std::string name = l.layer + "/" + n;
        STRATA_CHECK(seen.insert(name).second, "strata_weights: two weights map to '", name, "' (layer '", l.layer,
                     "')");
        out.emplace_back(name, t);
      }
      continue;
    }
    // A DepthwiseConv2D (a depthwise kernel and no pointwise one) is Strata's DepthwiseConv2d,
    // whose kernel is W; SeparableConv2d's is depthwise_W.
    const bool depthwise_layer = has_weight(l, "depthwise_kernel") && !has_weight(l, "pointwise_kernel");
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
      std::string own = mapped.substr(slash == std::string::npos ? 0 : slash + 1);
      if (depthwise_layer && own == "depthwise_W") own = "W";
      const std::string name = owner + "/" + own;
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
