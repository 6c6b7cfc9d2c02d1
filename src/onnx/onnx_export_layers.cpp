// How each layer class is written as ONNX nodes (opset 17). Weights are reordered into ONNX's
// layouts here: Strata's convolution filters are [k..., C, O] and ONNX's [O, C, k...].
#include "strata/core/error.hpp"
#include "strata/nn/layer_config.hpp"
#include "strata/ops/shape.hpp"

#include "onnx_export.hpp"

namespace strata::onnx::detail {

namespace {

using nlohmann::json;

// One value per spatial axis: {v} repeats.
std::vector<int64_t> per_axis(std::vector<int64_t> v, int64_t axes, int64_t fallback) {
  if (v.empty()) v = {fallback};
  if (v.size() == 1) v.assign(axes, v[0]);
  return v;
}

// ONNX's pads ([begin..., end...]) for Strata's padding. TensorFlow's SAME puts the odd unit at
// the end, which is ONNX's SAME_UPPER.
void set_padding(pb::NodeProto& n, const Padding& p) {
  if (p.kind == Padding::Kind::same) {
    set_string(n, "auto_pad", "SAME_UPPER");
  } else if (p.kind == Padding::Kind::explicit_) {
    std::vector<int64_t> pads = p.before;
    pads.insert(pads.end(), p.after.begin(), p.after.end());
    set_ints(n, "pads", pads);
  }
}

// [k..., a, b] -> [b, a, k...]: Strata's filters into ONNX's.
Tensor filters_first(const Tensor& w) {
  const int64_t r = w.dim();
  Shape perm{r - 1, r - 2};
  for (int64_t i = 0; i < r - 2; ++i) perm.push_back(i);
  return permute(w, perm);
}

}  // namespace

Value dense(Exporter& ex, const std::string& name, const json& c, std::vector<Value> args) {
  Value& x = args.at(0);
  const std::string in = ex.channels_last(x);
  std::string y = ex.fresh(name + "_matmul");
  ex.node("MatMul", {in, ex.initializer(name + "_W", ex.weight(name, "W"))}, y);
  if (c.at("use_bias").get<bool>()) {
    const std::string biased = ex.fresh(name + "_bias");
    ex.node("Add", {y, ex.initializer(name + "_b", ex.weight(name, "b"))}, biased);
    y = biased;
  }
  return ex.activation(Value{y, "", x.rank}, c.at("act").get<std::string>(), name);
}

namespace {

// Conv1d/2d/3d and the depthwise convolution (groups = channels, filters [k..., C, M]).
Value convolution(Exporter& ex, const std::string& name, const json& c, Value x, Tensor w, int64_t groups) {
  const int64_t spatial = x.rank - 2;
  const ConvOptions o = nn::conv_options_from(c.at("options"));
  const std::string in = ex.channels_first(x);
  std::vector<std::string> inputs{in, ex.initializer(name + "_W", w)};
  if (c.at("use_bias").get<bool>()) inputs.push_back(ex.initializer(name + "_b", ex.weight(name, "b")));
  const std::string y = ex.fresh(name + "_conv");
  pb::NodeProto& n = ex.node("Conv", inputs, y);
  set_ints(n, "kernel_shape", per_axis(nn::dims_of(c.at("filter_size")), spatial, 1));
  set_ints(n, "strides", per_axis(o.stride, spatial, 1));
  set_ints(n, "dilations", per_axis(o.dilation, spatial, 1));
  set_int(n, "group", groups);
  set_padding(n, o.padding);
  Value out{"", y, x.rank};
  if (o.fuse_relu) out = ex.activation(out, "relu", name);
  return ex.activation(out, c.at("act").get<std::string>(), name);
}

Value conv(Exporter& ex, const std::string& name, const json& c, std::vector<Value> args) {
  return convolution(ex, name, c, args.at(0), filters_first(ex.weight(name, "W")),
                     nn::conv_options_from(c.at("options")).groups);
}

Value depthwise_conv(Exporter& ex, const std::string& name, const json& c, std::vector<Value> args) {
  STRATA_CHECK(nn::conv_options_from(c.at("options")).groups == 1, "layer '", name,
               "': a grouped depthwise convolution has no ONNX form in this exporter");
  const Tensor w = ex.weight(name, "W");  // [kh, kw, C, M] -> [C * M, 1, kh, kw]
  const int64_t channels = w.size(2);
  Tensor f = permute(w, {2, 3, 0, 1});
  f = reshape(contiguous(f), {w.size(2) * w.size(3), 1, w.size(0), w.size(1)});
  return convolution(ex, name, c, args.at(0), f, channels);
}

// Transposed convolutions: filters [k..., O, C] are ONNX ConvTranspose's [C, O, k...]. SAME pads
// k - stride in all (the odd unit at the end), whatever the input size.
Value deconv(Exporter& ex, const std::string& name, const json& c, std::vector<Value> args) {
  Value x = args.at(0);
  const int64_t spatial = x.rank - 2;
  const ConvOptions o = nn::conv_options_from(c.at("options"));
  STRATA_CHECK(o.groups == 1, "layer '", name, "': a grouped transposed convolution has no ONNX form in this exporter");
  const std::vector<int64_t> k = per_axis(nn::dims_of(c.at("filter_size")), spatial, 1),
                             s = per_axis(o.stride, spatial, 1), d = per_axis(o.dilation, spatial, 1);
  const std::string in = ex.channels_first(x);
  std::vector<std::string> inputs{in, ex.initializer(name + "_W", filters_first(ex.weight(name, "W")))};
  if (c.at("use_bias").get<bool>()) inputs.push_back(ex.initializer(name + "_b", ex.weight(name, "b")));
  const std::string y = ex.fresh(name + "_deconv");
  pb::NodeProto& n = ex.node("ConvTranspose", inputs, y);
  set_ints(n, "kernel_shape", k);
  set_ints(n, "strides", s);
  set_ints(n, "dilations", d);
  if (o.padding.kind == Padding::Kind::same) {
    std::vector<int64_t> pads(2 * spatial);
    for (int64_t i = 0; i < spatial; ++i) {
      const int64_t total = (k[i] - 1) * d[i] + 1 - s[i];
      STRATA_CHECK(total >= 0, "layer '", name, "': SAME padding with a stride above the kernel has no ONNX form here");
      pads[i] = total / 2;
      pads[spatial + i] = total - total / 2;
    }
    set_ints(n, "pads", pads);
  } else {
    set_padding(n, o.padding);
  }
  return ex.activation(Value{"", y, x.rank}, c.at("act").get<std::string>(), name);
}

template <bool kMax>
Value pool(Exporter& ex, const std::string& name, const json& c, std::vector<Value> args) {
  Value x = args.at(0);
  const int64_t spatial = x.rank - 2;
  const PoolOptions o = nn::pool_options_from(c.at("options"));
  const std::vector<int64_t> k = per_axis(nn::dims_of(c.at("filter_size")), spatial, 1);
  const std::string in = ex.channels_first(x), y = ex.fresh(name + "_pool");
  // AveragePool's count_include_pad stays 0: an average divides by the real elements, as Strata's.
  pb::NodeProto& n = ex.node(kMax ? "MaxPool" : "AveragePool", {in}, y);
  set_ints(n, "kernel_shape", k);
  set_ints(n, "strides", o.stride.empty() ? k : per_axis(o.stride, spatial, 1));
  set_padding(n, o.padding);
  return Value{"", y, x.rank};
}

template <bool kMax>
Value global_pool(Exporter& ex, const std::string& name, const json&, std::vector<Value> args) {
  Value x = args.at(0);
  const std::string in = ex.channels_last(x), y = ex.fresh(name + "_pool");
  std::vector<int64_t> axes;
  for (int64_t i = 1; i < x.rank - 1; ++i) axes.push_back(i);
  pb::NodeProto& n = ex.node(kMax ? "ReduceMax" : "ReduceMean", {in}, y);
  set_ints(n, "axes", axes);
  set_int(n, "keepdims", 0);
  return Value{y, "", 2};
}

}  // namespace

Value batch_norm(Exporter& ex, const std::string& name, const json& c, std::vector<Value> args) {
  Value x = args.at(0);
  const std::string in = ex.channels_first(x), y = ex.fresh(name + "_bn");
  pb::NodeProto& n = ex.node("BatchNormalization",
                             {in, ex.initializer(name + "_gamma", ex.weight(name, "gamma")),
                              ex.initializer(name + "_beta", ex.weight(name, "beta")),
                              ex.initializer(name + "_mean", ex.weight(name, "moving_mean")),
                              ex.initializer(name + "_var", ex.weight(name, "moving_var"))},
                             y);
  set_float(n, "epsilon", c.at("epsilon").get<float>());
  return ex.activation(x.rank <= 2 ? Value{y, "", x.rank} : Value{"", y, x.rank}, c.at("act").get<std::string>(),
                       name);
}

namespace {

// Dropout and noise: the identity at inference.
Value identity(Exporter&, const std::string&, const json&, std::vector<Value> args) { return args.at(0); }

Value flatten(Exporter& ex, const std::string& name, const json&, std::vector<Value> args) {
  const std::string in = ex.channels_last(args.at(0)), y = ex.fresh(name + "_flatten");
  set_int(ex.node("Flatten", {in}, y), "axis", 1);
  return Value{y, "", 2};
}

Value reshape_layer(Exporter& ex, const std::string& name, const json& c, std::vector<Value> args) {
  // The batch axis is kept: 0 copies the input's first dim.
  std::vector<int64_t> shape{0};
  for (int64_t d : nn::dims_of(c.at("shape"))) {
    STRATA_CHECK(d != 0, "layer '", name, "': a reshape to a zero-sized axis has no ONNX form here");
    shape.push_back(d);
  }
  const std::string in = ex.channels_last(args.at(0)), y = ex.fresh(name + "_reshape");
  ex.node("Reshape", {in, ex.ints_constant(name + "_shape", shape)}, y);
  return Value{y, "", static_cast<int64_t>(shape.size())};
}

Value transpose_layer(Exporter& ex, const std::string& name, const json& c, std::vector<Value> args) {
  const std::vector<int64_t> perm = nn::dims_of(c.at("perm"));
  const std::string in = ex.channels_last(args.at(0)), y = ex.fresh(name + "_transpose");
  set_ints(ex.node("Transpose", {in}, y), "perm", perm);
  return Value{y, "", args.at(0).rank};
}

Value zero_pad(Exporter& ex, const std::string& name, const json& c, std::vector<Value> args) {
  Value x = args.at(0);
  const auto pairs = c.at("padding").get<std::vector<std::vector<int64_t>>>();
  STRATA_CHECK(static_cast<int64_t>(pairs.size()) == x.rank - 2, "layer '", name, "': padding of ", pairs.size(),
               " axes for an input of rank ", x.rank);
  // Channels-first when the value has it (between convolutions), else channels-last.
  const bool first = !x.first.empty();
  std::vector<int64_t> begin{0}, end{0};
  if (first) begin.push_back(0), end.push_back(0);
  for (const auto& p : pairs) {
    STRATA_CHECK(p.size() == 2, "layer '", name, "': padding must be [before, after] pairs");
    begin.push_back(p[0]);
    end.push_back(p[1]);
  }
  if (!first) begin.push_back(0), end.push_back(0);
  begin.insert(begin.end(), end.begin(), end.end());
  const std::string in = first ? x.first : ex.channels_last(x), y = ex.fresh(name + "_pad");
  ex.node("Pad", {in, ex.ints_constant(name + "_pads", begin)}, y);
  return first ? Value{"", y, x.rank} : Value{y, "", x.rank};
}

// Several inputs in one layout: channels-first when all have it (so a residual add between
// convolutions needs no transposes), else channels-last.
bool all_first(const std::vector<Value>& xs) {
  for (const Value& x : xs)
    if (x.first.empty() || x.rank <= 2) return false;
  return true;
}

Value concat(Exporter& ex, const std::string& name, const json& c, std::vector<Value> args) {
  const int64_t rank = args.at(0).rank;
  int64_t axis = c.at("concat_dim").get<int64_t>();
  if (axis < 0) axis += rank;
  STRATA_CHECK(axis >= 0 && axis < rank, "layer '", name, "': concat_dim out of range");
  const bool first = axis == rank - 1 && all_first(args);
  std::vector<std::string> inputs;
  for (Value& x : args) inputs.push_back(first ? x.first : ex.channels_last(x));
  const std::string y = ex.fresh(name + "_concat");
  set_int(ex.node("Concat", inputs, y), "axis", first ? 1 : axis);
  return first ? Value{"", y, rank} : Value{y, "", rank};
}

Value elementwise(Exporter& ex, const std::string& name, const json& c, std::vector<Value> args) {
  const std::string combine = c.at("combine").get<std::string>();
  const bool first = all_first(args);
  std::vector<std::string> inputs;
  for (Value& x : args) inputs.push_back(first ? x.first : ex.channels_last(x));
  std::string y;
  if (combine == "multiply") {  // Mul takes two inputs
    y = inputs[0];
    for (size_t i = 1; i < inputs.size(); ++i) {
      const std::string next = ex.fresh(name + "_mul");
      ex.node("Mul", {y, inputs[i]}, next);
      y = next;
    }
  } else {
    static const std::map<std::string, std::string> ops = {
        {"add", "Sum"}, {"maximum", "Max"}, {"minimum", "Min"}, {"mean", "Mean"}};
    auto it = ops.find(combine);
    STRATA_CHECK(it != ops.end(), "layer '", name, "': combine '", combine, "' has no ONNX form");
    y = ex.fresh(name + "_" + combine);
    ex.node(it->second, inputs, y);
  }
  const int64_t rank = args.at(0).rank;
  return ex.activation(first ? Value{"", y, rank} : Value{y, "", rank}, c.at("act").get<std::string>(), name);
}

// LayerNorm over the axes from begin_norm_axis, its gamma and beta over those from
// begin_params_axis (which ONNX broadcasts).
Value layer_norm(Exporter& ex, const std::string& name, const json& c, std::vector<Value> args) {
  STRATA_CHECK(c.at("scale").get<bool>(), "layer '", name, "': a LayerNorm without scale has no ONNX form here");
  const std::string in = ex.channels_last(args.at(0)), y = ex.fresh(name + "_norm");
  std::vector<std::string> inputs{in, ex.initializer(name + "_gamma", ex.weight(name, "gamma"))};
  if (c.at("center").get<bool>()) inputs.push_back(ex.initializer(name + "_beta", ex.weight(name, "beta")));
  pb::NodeProto& n = ex.node("LayerNormalization", inputs, y);
  set_int(n, "axis", c.at("begin_norm_axis").get<int64_t>());
  set_float(n, "epsilon", c.at("epsilon").get<float>());
  return ex.activation(Value{y, "", args.at(0).rank}, c.at("act").get<std::string>(), name);
}

// InstanceNorm: each sample's channel normalised over the spatial axes (channels-first in ONNX).
Value instance_norm(Exporter& ex, const std::string& name, const json& c, std::vector<Value> args) {
  Value x = args.at(0);
  const std::string in = ex.channels_first(x), y = ex.fresh(name + "_in");
  pb::NodeProto& n = ex.node("InstanceNormalization",
                             {in, ex.initializer(name + "_gamma", ex.weight(name, "gamma")),
                              ex.initializer(name + "_beta", ex.weight(name, "beta"))},
                             y);
  set_float(n, "epsilon", c.at("epsilon").get<float>());
  return ex.activation(Value{"", y, x.rank}, c.at("act").get<std::string>(), name);
}

// PRelu: x for x > 0, alpha x below, alpha per channel (the last axis) or shared: ONNX's PRelu.
Value prelu(Exporter& ex, const std::string& name, const json&, std::vector<Value> args) {
  const std::string in = ex.channels_last(args.at(0)), y = ex.fresh(name + "_prelu");
  ex.node("PRelu", {in, ex.initializer(name + "_alpha", ex.weight(name, "alpha"))}, y);
  return Value{y, "", args.at(0).rank};
}

// Scale: x times one learned number.
Value scale(Exporter& ex, const std::string& name, const json&, std::vector<Value> args) {
  Value& x = args.at(0);
  const bool last = !x.last.empty() || x.rank <= 2;
  const std::string in = last ? ex.channels_last(x) : x.first, y = ex.fresh(name + "_scale");
  ex.node("Mul", {in, ex.initializer(name + "_factor", ex.weight(name, "scale"))}, y);
  return last ? Value{y, "", x.rank} : Value{"", y, x.rank};
}

Value embedding(Exporter& ex, const std::string& name, const json&, std::vector<Value> args) {
  const std::string ids = ex.channels_last(args.at(0)), y = ex.fresh(name + "_gather");
  ex.node("Gather", {ex.initializer(name + "_embeddings", ex.weight(name, "embeddings")), ids}, y);
  return Value{y, "", args.at(0).rank + 1};
}

}  // namespace

const std::map<std::string, LayerExport>& layer_exports() {
  static const std::map<std::string, LayerExport> table = {
      {"dense", dense},
      {"conv1d", conv},
      {"conv2d", conv},
      {"conv3d", conv},
      {"depthwiseconv2d", depthwise_conv},
      {"deconv1d", deconv},
      {"deconv2d", deconv},
      {"deconv3d", deconv},
      {"maxpool1d", pool<true>},
      {"maxpool2d", pool<true>},
      {"maxpool3d", pool<true>},
      {"meanpool1d", pool<false>},
      {"meanpool2d", pool<false>},
      {"meanpool3d", pool<false>},
      {"globalmaxpool1d", global_pool<true>},
      {"globalmaxpool2d", global_pool<true>},
      {"globalmaxpool3d", global_pool<true>},
      {"globalmeanpool1d", global_pool<false>},
      {"globalmeanpool2d", global_pool<false>},
      {"globalmeanpool3d", global_pool<false>},
      {"batchnorm", batch_norm},
      {"batchnorm1d", batch_norm},
      {"batchnorm2d", batch_norm},
      {"batchnorm3d", batch_norm},
      {"layernorm", layer_norm},
      {"instancenorm", instance_norm},
      {"dropout", identity},
      {"gaussiannoise", identity},
      {"flatten", flatten},
      {"reshape", reshape_layer},
      {"transpose", transpose_layer},
      {"zeropad1d", zero_pad},
      {"zeropad2d", zero_pad},
      {"zeropad3d", zero_pad},
      {"slice", slice_layer},
      {"upsampling2d", upsampling2d},
      {"concat", concat},
      {"elementwise", elementwise},
      {"embedding", embedding},
      {"prelu", prelu},
      {"scale", scale},
      {"simple_rnn", recurrent},
      {"lstm", recurrent},
      {"gru", recurrent},
      {"bidirectional", bidirectional},
      {"multiheadattention", multihead_attention},
      {"transformerencoderlayer", transformer_encoder_layer},
      {"transformerencoder", transformer_encoder},
      {"transformerdecoderlayer", transformer_decoder_layer},
      {"transformerdecoder", transformer_decoder},
      {"pointmlp", point_mlp},
      {"transformnet", transform_net},
      {"pointnet", pointnet},
  };
  return table;
}

}  // namespace strata::onnx::detail
