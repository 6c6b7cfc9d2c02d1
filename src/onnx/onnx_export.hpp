// The exporter's state while a static model becomes an ONNX graph: the graph under construction,
// the model's weights by name, and each value of the model in the layouts made so far.
//
// Strata is channels-last and ONNX's convolutions, pools and batch norms are channels-first, so a
// value may exist in either layout: each is made on demand (one Transpose) and remembered, so a
// chain conv -> batch norm -> relu -> pool transposes once on the way in and once on the way out.
#pragma once
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "onnx_proto.hpp"

namespace strata::onnx::detail {

struct Value {
  std::string last, first;  // the ONNX names of its channels-last and channels-first forms ("": not made)
  int64_t rank = 0;
};

class Exporter {
 public:
  Exporter(pb::GraphProto& graph, std::map<std::string, Tensor> weights) : graph_(graph), weights_(std::move(weights)) {}

  // One layer's node of the model: its config ({"class", "name", "config"}) applied to `args`.
  Value layer(const nlohmann::json& layer, const std::vector<Value>& args);

  // --- for the layer handlers ---
  pb::NodeProto& node(const std::string& op, const std::vector<std::string>& inputs, const std::string& output);
  std::string fresh(const std::string& base);  // a new unique value name
  // The layer's weight `name` ("W"), an Error naming the layer when it has none; `perm` reorders
  // its axes on the way out (ONNX's weight layouts differ from Strata's).
  Tensor weight(const std::string& layer, const std::string& name) const;
  std::string initializer(const std::string& name, const Tensor& t);
  std::string ints_constant(const std::string& name, const std::vector<int64_t>& values);
  std::string float_constant(const std::string& name, float value);
  const std::string& channels_last(Value& v);
  const std::string& channels_first(Value& v);
  // `act` applied to v (an activation as nn::Activation names it); in v's current layout except
  // softmax, which needs the channels-last one.
  Value activation(Value v, const std::string& act, const std::string& layer);
  // The class of the layer being exported (for handlers shared by several classes).
  const std::string& kind_of(const std::string& layer) const { return kinds_.at(layer); }

 private:
  pb::GraphProto& graph_;
  std::map<std::string, Tensor> weights_;
  std::map<std::string, int> used_;
  std::map<std::string, std::string> kinds_;  // layer name -> class
};

// The handlers, by layer class (onnx_export_layers.cpp): each adds the nodes of one call.
using LayerExport = Value (*)(Exporter& ex, const std::string& name, const nlohmann::json& config,
                              std::vector<Value> args);
const std::map<std::string, LayerExport>& layer_exports();
// Dense and BatchNorm (onnx_export_layers.cpp), also the levels of the point-cloud layers.
Value dense(Exporter& ex, const std::string& name, const nlohmann::json& config, std::vector<Value> args);
Value batch_norm(Exporter& ex, const std::string& name, const nlohmann::json& config, std::vector<Value> args);
// The point-cloud layers whose every step has an ONNX operator (onnx_export_points.cpp): PointMlp,
// PointNet's transform net and PointNet. The searching ones (set abstraction, EdgeConv, X-Conv)
// have no ONNX form.
Value point_mlp(Exporter& ex, const std::string& name, const nlohmann::json& config, std::vector<Value> args);
Value transform_net(Exporter& ex, const std::string& name, const nlohmann::json& config, std::vector<Value> args);
Value pointnet(Exporter& ex, const std::string& name, const nlohmann::json& config, std::vector<Value> args);
// Slice and UpSampling2d (onnx_export_resample.cpp).
Value slice_layer(Exporter& ex, const std::string& name, const nlohmann::json& config, std::vector<Value> args);
Value upsampling2d(Exporter& ex, const std::string& name, const nlohmann::json& config, std::vector<Value> args);
// simple_rnn, lstm and gru (onnx_export_recurrent.cpp).
Value recurrent(Exporter& ex, const std::string& name, const nlohmann::json& config, std::vector<Value> args);
Value bidirectional(Exporter& ex, const std::string& name, const nlohmann::json& config, std::vector<Value> args);
// Attention and the Transformer encoder (onnx_export_attention.cpp).
Value multihead_attention(Exporter& ex, const std::string& name, const nlohmann::json& config, std::vector<Value> args);
Value transformer_encoder_layer(Exporter& ex, const std::string& name, const nlohmann::json& config,
                                std::vector<Value> args);
Value transformer_encoder(Exporter& ex, const std::string& name, const nlohmann::json& config, std::vector<Value> args);
Value transformer_decoder_layer(Exporter& ex, const std::string& name, const nlohmann::json& config,
                                std::vector<Value> args);
Value transformer_decoder(Exporter& ex, const std::string& name, const nlohmann::json& config, std::vector<Value> args);

}  // namespace strata::onnx::detail
