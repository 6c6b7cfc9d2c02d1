// The point-cloud layers that ONNX's operators can express (module points, docs/pointclouds.md):
// PointMlp (Dense, BatchNormalization and the activation per level), PointNet's transform net
// (the MLP, ReduceMax over the points, the fully connected levels, a Reshape to k x k plus the
// identity) and PointNet (the transforms applied with MatMul). Their children are not in the
// model's JSON: they are made from the layer's options with their own defaults, which come here
// from the transform net's declared option table, so the two cannot drift apart.
#include <limits>
#include <string>

#include "strata/core/error.hpp"
#include "strata/core/factory.hpp"
#include "strata/nn/layer_config.hpp"
#include "strata/nn/option_table.hpp"

#include "onnx_export.hpp"
#include "onnx_proto.hpp"

namespace strata::onnx::detail {

using nlohmann::json;

namespace {

// x [B, P, C] -> [B, C]: the maximum over the points.
Value max_over_points(Exporter& ex, const std::string& name, Value x) {
  const std::string in = ex.channels_last(x), y = ex.fresh(name + "_max");
  pb::NodeProto& n = ex.node("ReduceMax", {in}, y);
  set_ints(n, "axes", {1});
  set_int(n, "keepdims", 0);
  return Value{y, "", 2};
}

// Columns [begin, end) of the last axis of a rank-3 value.
std::string columns(Exporter& ex, const std::string& name, Value& x, int64_t begin, int64_t end) {
  const std::string y = ex.fresh(name);
  ex.node("Slice", {ex.channels_last(x), ex.ints_constant(name + "_starts", {begin}), ex.ints_constant(name + "_ends", {end}),
                    ex.ints_constant(name + "_axes", {2})},
          y);
  return y;
}

std::string matmul(Exporter& ex, const std::string& name, const std::string& a, const std::string& b) {
  const std::string y = ex.fresh(name);
  ex.node("MatMul", {a, b}, y);
  return y;
}

// A child transform net's config: the declared defaults, with its k.
json transform_net_config(int64_t k) {
  const nn::OptionTable* table = nn::layer_options("transformnet");
  STRATA_CHECK(table != nullptr, "ONNX export of PointNet: the transformnet layer class is not registered");
  json c = table->defaults;
  c["k"] = k;
  return c;
}

}  // namespace

Value point_mlp(Exporter& ex, const std::string& name, const json& c, std::vector<Value> args) {
  Value x = args.at(0);
  const bool norm = c.at("batch_norm").get<bool>();
  const json act = c.at("act");
  for (size_t i = 0; i < c.at("units").size(); ++i) {
    const std::string level = std::to_string(i);
    // With a BatchNorm the Dense has no bias and no activation (PointMlp's levels); the norms
    // keep BatchNorm's default epsilon.
    x = dense(ex, name + "/dense_" + level, json{{"use_bias", !norm}, {"act", norm ? json("") : act}}, {x});
    if (norm) x = batch_norm(ex, name + "/bn_" + level, json{{"epsilon", 1e-5}, {"act", act}}, {x});
  }
  return x;
}

Value transform_net(Exporter& ex, const std::string& name, const json& c, std::vector<Value> args) {
  const int64_t k = c.at("k").get<int64_t>();
  const json relu_levels = {{"batch_norm", true}, {"act", "relu"}};
  json mlp = relu_levels, fc = relu_levels;
  mlp["units"] = c.at("mlp");
  fc["units"] = c.at("fc");
  Value g = max_over_points(ex, name, point_mlp(ex, name + "/mlp", mlp, args));
  g = point_mlp(ex, name + "/fc", fc, {g});
  g = dense(ex, name + "/out", json{{"use_bias", true}, {"act", ""}}, {g});
  const std::string square = ex.fresh(name + "_square"), y = ex.fresh(name + "_transform");
  ex.node("Reshape", {ex.channels_last(g), ex.ints_constant(name + "_shape", {-1, k, k})}, square);
  ex.node("Add", {square, ex.initializer(name + "_identity", eye(k))}, y);  // the identity plus the correction
  return Value{y, "", 3};
}

Value pointnet(Exporter& ex, const std::string& name, const json& c, std::vector<Value> args) {
  Value x = args.at(0);
  STRATA_CHECK(x.rank == 3, "layer '", name, "': PointNet exports on clouds [B, P, 3 + F], got rank ", x.rank);
  const json relu_levels = {{"batch_norm", true}, {"act", "relu"}};
  Value points = x;
  if (c.at("input_transform").get<bool>()) {
    // Only the coordinates turn; the features after them (none: an empty slice) keep their values.
    Value xyz{columns(ex, name + "_xyz", x, 0, 3), "", 3};
    const Value turn = transform_net(ex, name + "/input_transform", transform_net_config(3), {xyz});
    const std::string turned = matmul(ex, name + "_turned", xyz.last, turn.last);
    const std::string rest = columns(ex, name + "_features", x, 3, std::numeric_limits<int64_t>::max());
    const std::string joined = ex.fresh(name + "_points");
    set_int(ex.node("Concat", {turned, rest}, joined), "axis", 2);
    points = Value{joined, "", 3};
  }
  json mlp1 = relu_levels, mlp2 = relu_levels;
  mlp1["units"] = c.at("mlp1");
  mlp2["units"] = c.at("mlp2");
  Value local = point_mlp(ex, name + "/mlp1", mlp1, {points});
  if (c.at("feature_transform").get<bool>()) {
    const int64_t k = c.at("mlp1").back().get<int64_t>();
    const Value turn = transform_net(ex, name + "/feature_transform", transform_net_config(k), {local});
    local = Value{matmul(ex, name + "_aligned", ex.channels_last(local), turn.last), "", 3};
  }
  const Value global = max_over_points(ex, name, point_mlp(ex, name + "/mlp2", mlp2, {local}));
  if (c.at("global_only").get<bool>()) return global;
  // Each point's local features with the global ones: [B, 1, C2] expanded to [B, P, C2].
  const int64_t width = c.at("mlp2").back().get<int64_t>();
  const std::string local_last = ex.channels_last(local);
  const std::string batch_points = ex.fresh(name + "_batch_points"), shape = ex.fresh(name + "_spread_shape");
  pb::NodeProto& take = ex.node("Shape", {local_last}, batch_points);
  set_int(take, "start", 0);
  set_int(take, "end", 2);
  set_int(ex.node("Concat", {batch_points, ex.ints_constant(name + "_width", {width})}, shape), "axis", 0);
  const std::string one = ex.fresh(name + "_global_row"), spread = ex.fresh(name + "_global_spread");
  ex.node("Unsqueeze", {global.last, ex.ints_constant(name + "_row_axis", {1})}, one);
  ex.node("Expand", {one, shape}, spread);
  const std::string y = ex.fresh(name + "_point_features");
  set_int(ex.node("Concat", {local_last, spread}, y), "axis", 2);
  return Value{y, "", 3};
}

}  // namespace strata::onnx::detail
