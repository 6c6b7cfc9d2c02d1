// Keras 3's config.json -> Strata's model JSON. Keras's graph (each layer's inbound keras tensors)
// becomes Strata's nodes in the order Keras lists its layers (model.layers order, which is also
// how Keras 3 numbers layers of one class in the weights file, and how Strata's leaf layers come
// out); activation layers are folded into the layer that produced their input.
#include "strata/interop/keras_model.hpp"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "assign_library_layers.hpp"
#include "strata/core/error.hpp"
#include "strata/core/limits.hpp"
#include "strata/interop/weight_files.hpp"
#include "strata/io/hdf5.hpp"
#include "strata/io/keras.hpp"
#include "strata/nn/load_weights.hpp"

namespace strata::interop {
namespace {

using nlohmann::json;

// One Keras layer's config, read with its name in every error.
class KerasLayer {
 public:
  KerasLayer(const json& layer, std::string what, bool keras2) : what_(std::move(what)), keras2_(keras2) {
    STRATA_CHECK(layer.is_object() && layer.contains("class_name") && layer["class_name"].is_string(), what_,
                 ": a layer without class_name");
    cls_ = layer["class_name"].get<std::string>();
    config_ = layer.contains("config") && layer["config"].is_object() ? layer["config"] : json::object();
    name_ = config_.contains("name") && config_["name"].is_string() ? config_["name"].get<std::string>() : "";
    STRATA_CHECK(!name_.empty() && name_.size() <= 256, what_, ": a ", cls_, " layer without a name");
    what_ += ": layer '" + name_ + "' (" + cls_ + ")";
  }
  const std::string& cls() const { return cls_; }
  const std::string& name() const { return name_; }
  const std::string& what() const { return what_; }
  bool has(const char* key) const { return config_.contains(key) && !config_[key].is_null(); }
  bool keras2() const { return keras2_; }

  int64_t integer(const char* key, int64_t lo, int64_t hi) const {
    STRATA_CHECK(has(key) && config_[key].is_number_integer(), what_, ": '", key, "' is not an integer");
    const int64_t v = config_[key].get<int64_t>();
    STRATA_CHECK(v >= lo && v <= hi, what_, ": '", key, "' is ", v, ", outside [", lo, ", ", hi, "]");
    return v;
  }
  double number(const char* key, double lo, double hi) const {
    STRATA_CHECK(has(key) && config_[key].is_number(), what_, ": '", key, "' is not a number");
    const double v = config_[key].get<double>();
    STRATA_CHECK(v >= lo && v <= hi, what_, ": '", key, "' is ", v, ", outside [", lo, ", ", hi, "]");
    return v;
  }
  bool flag(const char* key, bool otherwise) const {
    if (!has(key)) return otherwise;
    STRATA_CHECK(config_[key].is_boolean(), what_, ": '", key, "' is not true or false");
    return config_[key].get<bool>();
  }
  std::string text(const char* key, const std::string& otherwise) const {
    if (!has(key)) return otherwise;
    STRATA_CHECK(config_[key].is_string(), what_, ": '", key, "' is not a string");
    return config_[key].get<std::string>();
  }
  // A size per spatial axis (Keras writes tuples; an integer means every axis).
  std::vector<int64_t> sizes(const char* key, size_t axes) const {
    STRATA_CHECK(has(key), what_, ": no '", key, "'");
    const json& v = config_[key];
    std::vector<int64_t> out;
    if (v.is_number_integer()) out.assign(axes, v.get<int64_t>());
    if (v.is_array() && v.size() == axes)
      for (const json& e : v) out.push_back(e.is_number_integer() ? e.get<int64_t>() : 0);
    STRATA_CHECK(out.size() == axes, what_, ": '", key, "' is not ", axes, " sizes");
    for (int64_t s : out) STRATA_CHECK(s >= 1 && s <= (1 << 20), what_, ": '", key, "' holds a size outside [1, 2^20]");
    return out;
  }
  // Only the value Strata computes with: anything else is refused, never run otherwise.
  template <class T>
  void require(const char* key, const T& value, const char* why) const {
    if (!has(key)) return;
    bool same = false;
    try {
      same = config_[key].get<T>() == value;
    } catch (const json::exception&) {
    }
    STRATA_CHECK(same, what_, ": '", key, "' = ", config_[key].dump().substr(0, 80), " is not read (", why, ")");
  }
  void channels_last() const { require<std::string>("data_format", "channels_last", "Strata is channels-last"); }
  // Whether the axis (Keras 3: -1 or an index; Keras 2: a list of one index) is the last of `rank`.
  bool last_axis(const char* key, int rank) const {
    if (!has(key)) return true;
    const json& v = config_[key];
    const json& a = v.is_array() && v.size() == 1 ? v[0] : v;
    STRATA_CHECK(a.is_number_integer(), what_, ": '", key, "' is not one axis");
    const int64_t axis = a.get<int64_t>();
    return axis == -1 || axis == rank - 1;
  }

  // A Keras activation by name, as Strata's (each checked against Keras by the fixtures).
  std::string activation(const char* key = "activation") const {
    const std::string a = text(key, "linear");
    static const std::map<std::string, std::string> names = {
        {"linear", ""},         {"relu", "relu"},         {"tanh", "tanh"},
        {"sigmoid", "sigmoid"}, {"softmax", "softmax"},   {"elu", "elu"},
        {"selu", "selu"},       {"softplus", "softplus"}, {"softsign", "softsign"},
        {"swish", "swish"},     {"silu", "swish"},        {"gelu", "gelu"},
        {"relu6", "relu6"},     {"mish", "mish"},         {"hard_sigmoid", "hard_sigmoid"}};
    const auto it = names.find(a);
    STRATA_CHECK(it != names.end(), what_, ": activation '", a.substr(0, 64), "' is not read");
    STRATA_CHECK(!(keras2_ && a == "hard_sigmoid"), what_,
                 ": Keras 2's hard_sigmoid (clip(0.2 x + 0.5, 0, 1)) is not read (Keras 3's, relu6(x + 3) / 6, is)");
    return it->second;
  }
  std::string padding() const {
    const std::string p = text("padding", "valid");
    STRATA_CHECK(p == "same" || p == "valid", what_, ": padding '", p.substr(0, 32), "' is not read");
    return p;
  }

 private:
  std::string what_, cls_, name_;
  bool keras2_;
  json config_;
};

json pool(const KerasLayer& k, const char* strata_class) {
  k.channels_last();
  const std::vector<int64_t> size = k.sizes("pool_size", 2);
  return {{"class", strata_class},
          {"config",
           {{"filter_size", size},
            {"options", {{"padding", k.padding()}, {"stride", k.has("strides") ? k.sizes("strides", 2) : size}}}}}};
}

json recurrent(const KerasLayer& k, const char* strata_class) {
  for (const char* key : {"return_state", "stateful", "unroll"})
    k.require(key, false, "Strata's layer returns the outputs");
  k.require("use_bias", true, "Strata's recurrent layers have a bias");
  k.require("time_major", false, "batch first");
  json c = {{"units", k.integer("units", 1, 1 << 20)},
            {"return_sequences", k.flag("return_sequences", false)},
            {"reverse", k.flag("go_backwards", false)},
            {"act", k.activation()}};
  if (std::string(strata_class) != "simple_rnn") c["recurrent_act"] = k.activation("recurrent_activation");
  if (std::string(strata_class) == "gru") c["reset_after"] = k.flag("reset_after", true);
  // Keras's input and recurrent dropouts act in training only, as fit's would: not carried.
  return {{"class", strata_class}, {"config", c}};
}

// Strata's layer (class and declared options) for a Keras layer that holds or computes something;
// null for the activation layers, which are folded.
json strata_layer(const KerasLayer& k, int rank) {
  const std::string& c = k.cls();
  if (c == "Dense")
    return {
        {"class", "dense"},
        {"config",
         {{"units", k.integer("units", 1, 1 << 24)}, {"act", k.activation()}, {"use_bias", k.flag("use_bias", true)}}}};
  if (c == "Conv2D") {
    k.channels_last();
    return {{"class", "conv2d"},
            {"config",
             {{"n_filter", k.integer("filters", 1, 1 << 20)},
              {"filter_size", k.sizes("kernel_size", 2)},
              {"act", k.activation()},
              {"use_bias", k.flag("use_bias", true)},
              {"options",
               {{"padding", k.padding()},
                {"stride", k.has("strides") ? k.sizes("strides", 2) : std::vector<int64_t>{1, 1}},
                {"dilation", k.has("dilation_rate") ? k.sizes("dilation_rate", 2) : std::vector<int64_t>{1, 1}},
                {"groups", k.has("groups") ? k.integer("groups", 1, 1 << 20) : 1}}}}}};
  }
  if (c == "MaxPooling2D") return pool(k, "maxpool2d");
  if (c == "AveragePooling2D") return pool(k, "meanpool2d");
  if (c == "GlobalAveragePooling2D" || c == "GlobalMaxPooling2D") {
    k.channels_last();
    k.require("keepdims", false, "Strata's global pools drop the spatial axes");
    return {{"class", c == "GlobalMaxPooling2D" ? "globalmaxpool2d" : "globalmeanpool2d"}, {"config", json::object()}};
  }
  if (c == "Flatten") {
    k.channels_last();
    return {{"class", "flatten"}, {"config", json::object()}};
  }
  if (c == "Dropout") return {{"class", "dropout"}, {"config", {{"p", k.number("rate", 0, 1)}}}};
  if (c == "BatchNormalization") {
    STRATA_CHECK(k.last_axis("axis", rank), k.what(), ": only the last axis (channels last) is read");
    k.require("center", true, "Strata's batch norm has beta");
    k.require("scale", true, "Strata's batch norm has gamma");
    return {{"class", "batchnorm"},
            {"config", {{"decay", k.number("momentum", 0, 1)}, {"epsilon", k.number("epsilon", 0, 1)}, {"act", ""}}}};
  }
  if (c == "Embedding") {
    k.require("mask_zero", false, "no masks");
    return {{"class", "embedding"},
            {"config",
             {{"vocabulary_size", k.integer("input_dim", 1, int64_t{1} << 31)},
              {"embedding_size", k.integer("output_dim", 1, 1 << 20)}}}};
  }
  if (c == "LSTM") return recurrent(k, "lstm");
  if (c == "GRU") return recurrent(k, "gru");
  if (c == "SimpleRNN") return recurrent(k, "simple_rnn");
  static const std::map<std::string, std::string> combine = {
      {"Add", "add"}, {"Multiply", "multiply"}, {"Maximum", "maximum"}, {"Minimum", "minimum"}, {"Average", "mean"}};
  if (const auto it = combine.find(c); it != combine.end())
    return {{"class", "elementwise"}, {"config", {{"combine", it->second}, {"act", ""}}}};
  if (c == "Concatenate")
    return {{"class", "concat"}, {"config", {{"concat_dim", k.has("axis") ? k.integer("axis", -64, 64) : -1}}}};
  if (c == "Activation" || c == "ReLU" || c == "Softmax" || c == "LeakyReLU") return nullptr;
  throw Error(k.what() + ": Keras layer class '" + c.substr(0, 64) + "' is not read");
}

// The rank of a layer's output for inputs of rank `rank` (the first input's), checking what the
// layer needs: Keras's shapes are not in its config, and an axis is only checked knowing the rank.
int output_rank(const KerasLayer& k, int rank) {
  const std::string& c = k.cls();
  auto needs = [&](int r) { STRATA_CHECK(rank == r, k.what(), ": an input of rank ", rank, " (", r, " expected)"); };
  if (c == "Conv2D" || c == "MaxPooling2D" || c == "AveragePooling2D") return needs(4), 4;
  if (c == "GlobalAveragePooling2D" || c == "GlobalMaxPooling2D") return needs(4), 2;
  if (c == "LSTM" || c == "GRU" || c == "SimpleRNN") return needs(3), k.flag("return_sequences", false) ? 3 : 2;
  if (c == "Flatten") return 2;
  if (c == "Embedding") return rank + 1;
  return rank;
}

// The Strata activation an activation layer applies.
std::string folded_activation(const KerasLayer& k) {
  if (k.cls() == "Activation") return k.activation();
  if (k.cls() == "Softmax") {
    STRATA_CHECK(!k.has("axis") || k.integer("axis", -1, -1) == -1, k.what(), ": only axis -1 is read");
    return "softmax";
  }
  if (k.cls() == "LeakyReLU") {  // Keras 2 calls the slope alpha; both default to 0.3
    const char* key = k.keras2() ? "alpha" : "negative_slope";
    return "lrelu" + std::to_string(k.has(key) ? k.number(key, 0, 1) : 0.3);
  }
  for (const char* key : {"max_value", "threshold", "negative_slope"})
    if (k.has(key)) STRATA_CHECK(k.number(key, 0, 0) == 0, k.what(), ": '", key, "' is not read");
  return "relu";
}

// An input layer's shape: Keras 3 writes batch_shape, Keras 2 batch_input_shape (also on the
// first layer of a Sequential model that has no InputLayer).
json batch_shape_of(const json& layer) {
  const json& c = layer.is_object() && layer.contains("config") ? layer["config"] : json();
  if (!c.is_object()) return json();
  return c.contains("batch_shape") ? c["batch_shape"] : c.value("batch_input_shape", json());
}

// A Keras input's shape and dtype as Strata's input: the batch free, every other size fixed.
json strata_input(const json& batch_shape, const std::string& dtype, const std::string& name, const std::string& what) {
  STRATA_CHECK(batch_shape.is_array() && !batch_shape.empty() && batch_shape.size() <= 8, what, ": input '", name,
               "' has no batch_shape of rank 1 to 8");
  std::vector<int64_t> shape{-1};
  for (size_t i = 1; i < batch_shape.size(); ++i) {
    STRATA_CHECK(batch_shape[i].is_number_integer(), what, ": input '", name, "': axis ", i,
                 " has no fixed size (Strata's static models fix every size but the batch's)");
    shape.push_back(batch_shape[i].get<int64_t>());
  }
  const bool ids = dtype.rfind("int", 0) == 0 || dtype.rfind("uint", 0) == 0;
  return {{"name", name}, {"shape", shape}, {"dtype", ids ? "int64" : "float32"}};
}

// An InputLayer's entry of the config as Strata's input.
json input_of(const KerasLayer& k, const json& layer, const std::string& what) {
  return strata_input(batch_shape_of(layer), k.text("dtype", "float32"), k.name(), what);
}

// Keras's graph as Strata's: inputs, layers, nodes (one per Keras layer that is not folded) and
// outputs, in value slots (inputs first, then each node's output).
class GraphBuilder {
 public:
  explicit GraphBuilder(std::string what) : what_(std::move(what)) {}

  // An input as strata_input makes it, known to the layers after it by its name.
  void add_input(const json& input) {
    const std::string name = input["name"].get<std::string>();
    STRATA_CHECK(!slots_.count(name), what_, ": two layers named '", name, "'");
    slots_[name] = static_cast<int>(inputs_.size());
    ranks_[slots_[name]] = static_cast<int>(input["shape"].size());
    inputs_.push_back(input);
  }

  // A Keras layer applied to the values of these layer names (their first output).
  void add_layer(const KerasLayer& k, const std::vector<std::string>& args) {
    STRATA_CHECK(!slots_.count(k.name()), what_, ": two layers named '", k.name(), "'");
    std::vector<int> arg_slots;
    for (const std::string& a : args) {
      const auto it = slots_.find(a);
      STRATA_CHECK(it != slots_.end(), k.what(), ": its input '", a.substr(0, 64), "' is not an earlier layer");
      arg_slots.push_back(it->second);
      ++reads_[it->second];
    }
    STRATA_CHECK(!arg_slots.empty(), k.what(), ": a call without inputs");
    const int rank = ranks_.at(arg_slots[0]);
    json layer = strata_layer(k, rank);
    if (layer.is_null()) {  // an activation layer: applied by the layer whose output it reads
      STRATA_CHECK(arg_slots.size() == 1, k.what(), ": one input expected");
      const int slot = arg_slots[0];
      const int node = slot - static_cast<int>(inputs_.size());
      STRATA_CHECK(node >= 0 && reads_[slot] == 1, k.what(),
                   ": an activation layer is read only right after the one layer whose output only it reads");
      json& producer = layers_[static_cast<size_t>(nodes_[static_cast<size_t>(node)]["layer"].get<int>())];
      static const std::set<std::string> applies_act_last = {"dense", "conv2d", "batchnorm", "elementwise"};
      STRATA_CHECK(applies_act_last.count(producer["class"].get<std::string>()) && producer["config"]["act"] == "",
                   k.what(), ": the layer before it has an activation of its own or applies none last");
      producer["config"]["act"] = folded_activation(k);
      slots_[k.name()] = slot;
      return;
    }
    layer["name"] = k.name();
    nodes_.push_back({{"layer", static_cast<int>(layers_.size())}, {"args", arg_slots}});
    layers_.push_back(std::move(layer));
    slots_[k.name()] = static_cast<int>(inputs_.size() + nodes_.size()) - 1;
    ranks_[slots_[k.name()]] = output_rank(k, rank);
  }

  std::string model_json(const std::vector<std::string>& outputs, const std::string& name) const {
    std::vector<int> out;
    for (const std::string& o : outputs) {
      const auto it = slots_.find(o);
      STRATA_CHECK(it != slots_.end(), what_, ": output layer '", o.substr(0, 64), "' is not a layer");
      out.push_back(it->second);
    }
    STRATA_CHECK(!inputs_.empty() && !out.empty(), what_, ": a model needs inputs and outputs");
    const json graph = {{"inputs", inputs_}, {"layers", layers_}, {"nodes", nodes_}, {"outputs", out}};
    return json{
        {"format", "strata.model"}, {"version", 1}, {"model", {{"class", "model"}, {"name", name}, {"config", graph}}}}
        .dump();
  }

 private:
  std::string what_;
  std::map<std::string, int> slots_;  // a Keras layer's name -> the slot of its output
  std::map<int, int> reads_;          // slot -> how many layers read it
  std::map<int, int> ranks_;          // slot -> the rank of its value
  json inputs_ = json::array(), layers_ = json::array(), nodes_ = json::array();
};

// The layer names a Keras 3 call's arguments hold: keras tensors {"class_name": "__keras_tensor__",
// "config": {"keras_history": [layer, node, index]}}, alone or in a list (merge layers).
void tensor_sources(const json& arg, std::vector<std::string>& out, const std::string& what, int depth = 0) {
  STRATA_CHECK(depth < 4, what, ": arguments nest too deeply");
  if (arg.is_array()) {
    for (const json& a : arg) tensor_sources(a, out, what, depth + 1);
    return;
  }
  STRATA_CHECK(arg.is_object() && arg.value("class_name", "") == "__keras_tensor__" && arg.contains("config") &&
                   arg["config"].is_object() && arg["config"].contains("keras_history"),
               what, ": an argument that is not a Keras tensor");
  const json& h = arg["config"]["keras_history"];
  STRATA_CHECK(h.is_array() && h.size() == 3 && h[0].is_string() && h[1] == 0 && h[2] == 0, what, ": reads ",
               h.dump().substr(0, 80), " (a layer called more than once, or a second output, is not read)");
  out.push_back(h[0].get<std::string>());
}

// The layer names one call of a layer reads. Keras 3: {"args": [tensor or [tensors]], "kwargs"};
// Keras 2: [[name, 0, 0, kwargs], ...], one entry per input.
std::vector<std::string> call_sources(const json& node, const std::string& what) {
  std::vector<std::string> out;
  if (node.is_object()) {
    STRATA_CHECK(node.contains("args") && node["args"].is_array() && node["args"].size() == 1, what,
                 ": a call of other than one positional argument is not read");
    tensor_sources(node["args"][0], out, what);
    return out;
  }
  STRATA_CHECK(node.is_array() && !node.empty() && node.size() <= 64, what, ": a call without inputs");
  for (const json& in : node) {
    STRATA_CHECK(in.is_array() && in.size() == 4 && in[0].is_string() && in[3].is_object(), what,
                 ": an input that is not [layer, node, tensor, kwargs]");
    STRATA_CHECK(in[1] == 0 && in[2] == 0, what, ": reads ", in.dump().substr(0, 80),
                 " (a layer called more than once, or a second output, is not read)");
    for (const auto& [key, value] : in[3].items())
      STRATA_CHECK(value.is_null(), what, ": call argument '", key.substr(0, 32), "' is not read");
    out.push_back(in[0].get<std::string>());
  }
  return out;
}

// Keras 3 writes input_layers / output_layers as [name, 0, 0] or a list of those.
std::vector<std::string> endpoint_names(const json& v, const std::string& what) {
  std::vector<std::string> out;
  if (v.is_array() && v.size() == 3 && v[0].is_string()) return {v[0].get<std::string>()};
  STRATA_CHECK(v.is_array() && v.size() <= 64, what, ": input_layers / output_layers is not a list");
  for (const json& e : v) {
    STRATA_CHECK(e.is_array() && e.size() == 3 && e[0].is_string() && e[2] == 0, what,
                 ": an input or output that is not a layer's first output");
    out.push_back(e[0].get<std::string>());
  }
  return out;
}

std::string translate(const json& doc, const std::string& what, bool keras2) {
  STRATA_CHECK(doc.is_object() && doc.contains("config") && doc["config"].is_object() && doc.contains("class_name"),
               what, ": config.json is not a Keras model's");
  const std::string cls = doc["class_name"].is_string() ? doc["class_name"].get<std::string>() : "";
  const json& config = doc["config"];
  STRATA_CHECK(cls == "Functional" || cls == "Sequential" || cls == "Model", what, ": a '", cls.substr(0, 64),
               "' model is not read (Functional and Sequential are)");
  STRATA_CHECK(config.contains("layers") && config["layers"].is_array() && !config["layers"].empty(), what,
               ": the model has no layers");
  const std::string name =
      config.contains("name") && config["name"].is_string() ? config["name"].get<std::string>() : "keras";
  GraphBuilder graph(what);
  const json& layers = config["layers"];
  if (cls == "Sequential") {
    std::string previous;
    for (size_t i = 0; i < layers.size(); ++i) {
      const KerasLayer k(layers[i], what, keras2);
      if (k.cls() == "InputLayer") {
        STRATA_CHECK(i == 0, k.what(), ": an input layer that is not the first");
        graph.add_input(input_of(k, layers[i], what));
      } else {
        if (i == 0) {  // no InputLayer: the first layer's batch_input_shape (Keras 2) or build_config says it
          const json& build = layers[i].contains("build_config") ? layers[i]["build_config"] : json();
          json shape = batch_shape_of(layers[i]);
          if (shape.is_null() && build.is_object()) shape = build.value("input_shape", json());
          STRATA_CHECK(!shape.is_null(), k.what(), ": a Sequential model without an input shape (give it keras.Input)");
          graph.add_input(strata_input(shape, "float32", "input", what));
          previous = "input";
        }
        graph.add_layer(k, {previous});
      }
      previous = k.name();
    }
    return graph.model_json({previous}, name);
  }
  // Inputs in the model's order (input_layers), then the layers in Keras's order.
  for (const std::string& input : endpoint_names(config.value("input_layers", json()), what)) {
    const auto it = std::find_if(layers.begin(), layers.end(), [&](const json& l) {
      return l.is_object() && l.value("class_name", "") == "InputLayer" && l.value("name", "") == input;
    });
    STRATA_CHECK(it != layers.end(), what, ": input '", input.substr(0, 64), "' is not an InputLayer of the model");
    graph.add_input(input_of(KerasLayer(*it, what, keras2), *it, what));
  }
  for (const json& layer : layers) {
    const KerasLayer k(layer, what, keras2);
    if (k.cls() == "InputLayer") continue;  // added above, or not one of the model's inputs (refused as read)
    const json& nodes = layer.contains("inbound_nodes") ? layer["inbound_nodes"] : json();
    STRATA_CHECK(nodes.is_array() && nodes.size() == 1, k.what(), ": called ", nodes.is_array() ? nodes.size() : 0,
                 " times (once is read: shared layers are not)");
    graph.add_layer(k, call_sources(nodes[0], k.what()));
  }
  std::vector<std::string> outputs = endpoint_names(config.value("output_layers", json()), what);
  return graph.model_json(outputs, name);
}

}  // namespace

std::string keras_config_to_strata_json(const std::string& config_json, const std::string& what, int keras_major) {
  STRATA_CHECK(keras_major == 2 || keras_major == 3, what, ": Keras ", keras_major, " is not read (2 and 3 are)");
  check_json_depth(config_json, what + " (config.json)");
  json doc;
  try {
    doc = json::parse(config_json);
  } catch (const json::exception& e) {
    throw Error(what + ": config.json is not valid JSON (" + e.what() + ")");
  }
  try {
    return translate(doc, what, keras_major == 2);
  } catch (const json::exception& e) {  // a value of another type than Keras writes, where one is read as given
    throw Error(what + ": config.json: " + e.what());
  }
}

std::shared_ptr<nn::Model> load_keras_model(const std::string& path) {
  const io::KerasArchive archive = io::load_keras_archive(path);
  std::shared_ptr<nn::Model> model =
      nn::Model::from_json(keras_config_to_strata_json(archive.config, path, archive.keras3 ? 3 : 2));
  // Keras 3 places weights by class and number (as load_library_weights reads them); Keras 2's
  // file names them by layer, and the model's layers have Keras's names.
  const size_t assigned = is_keras3_layout(archive.weights)
                              ? assign_library_layers(*model, archive.weights, path, Library::keras, /*by_name=*/true)
                              : nn::assign_weights_by_name(*model, io::strata_weights(archive.weights));
  STRATA_CHECK(assigned == model->named_weights().size(), path, ": the file holds ", assigned, " of the model's ",
               model->named_weights().size(), " weights");
  model->eval();
  return model;
}

}  // namespace strata::interop
