// How each supported ONNX operator becomes Strata layers (the families of element-wise math,
// reductions, logic and moving elements have files of their own, onnx_import_*.cpp). Weights are
// reordered into Strata's layouts here (ONNX filters [O, C, k...] -> [k..., C, O]); attributes
// Strata cannot honour (ceil_mode, SAME_LOWER...) are refused naming the node.
#include <algorithm>
#include <cmath>
#include <limits>

#include "strata/core/checked_size.hpp"
#include "strata/core/error.hpp"
#include "strata/core/factory.hpp"
#include "strata/nn/layer_config.hpp"
#include "strata/ops/elementwise.hpp"
#include "strata/ops/shape.hpp"

#include "onnx_import.hpp"

namespace strata::onnx::detail {

namespace {

using nlohmann::json;
using nn::Symbol;

int64_t rank_of(const Symbol& s) { return static_cast<int64_t>(s.shape().size()); }

// Strata's padding for a window operator's auto_pad / pads.
json padding_of(const Importer& im, const pb::NodeProto& node, int64_t spatial) {
  const std::string mode = string_attribute(node, "auto_pad", "NOTSET");
  if (mode == "SAME_UPPER") return "same";
  if (mode == "VALID") return "valid";
  require(mode == "NOTSET", im, node, "auto_pad " + mode + " is not supported (SAME_UPPER, VALID and pads are)");
  const std::vector<int64_t> pads = ints_attribute(node, "pads", std::vector<int64_t>(2 * spatial, 0));
  require(static_cast<int64_t>(pads.size()) == 2 * spatial, im, node, "pads must have 2 values per spatial axis");
  bool zero = true;
  for (int64_t p : pads) {
    require(p >= 0 && p <= 4096, im, node, "pads must be between 0 and 4096");
    zero = zero && p == 0;
  }
  if (zero) return "valid";
  return {{"before", std::vector<int64_t>(pads.begin(), pads.begin() + spatial)},
          {"after", std::vector<int64_t>(pads.begin() + spatial, pads.end())}};
}

std::vector<int64_t> window_attribute(const Importer& im, const pb::NodeProto& node, const std::string& name,
                                      int64_t spatial, int64_t fallback) {
  std::vector<int64_t> v = ints_attribute(node, name, std::vector<int64_t>(spatial, fallback));
  require(static_cast<int64_t>(v.size()) == spatial, im, node, name + " must have one value per spatial axis");
  for (int64_t x : v) require(x >= 1 && x <= 4096, im, node, name + " values must be between 1 and 4096");
  return v;
}

// [a, b, k...] -> [k..., b, a]: ONNX's filters into Strata's.
Tensor filters_last(const Tensor& w) {
  const int64_t r = w.dim();
  Shape perm;
  for (int64_t i = 2; i < r; ++i) perm.push_back(i);
  perm.push_back(1);
  perm.push_back(0);
  return contiguous(permute(w, perm));
}

std::string spatial_kind(const std::string& base, int64_t spatial) { return base + std::to_string(spatial) + "d"; }

void conv(Importer& im, const pb::NodeProto& node) {
  const Symbol x = im.value(node, 0);
  const Tensor w = im.constant(node, 1);
  const int64_t spatial = rank_of(x) - 2;
  require(spatial >= 1 && spatial <= 3 && w.dim() == spatial + 2, im, node, "needs a 1, 2 or 3-d convolution");
  const int64_t groups = int_attribute(node, "group", 1), channels = x.shape()[1];
  require(groups >= 1 && channels % groups == 0 && w.size(1) * groups == channels && w.size(0) % groups == 0, im, node,
          "filters of shape " + w.shape().str() + " do not fit input " + x.shape().str());
  const bool bias = im.num_inputs(node) > 2;
  std::vector<std::pair<std::string, Tensor>> weights{{"W", filters_last(w)}};
  if (bias) weights.push_back({"b", im.constant(node, 2)});
  const std::vector<int64_t> kernel(w.shape().begin() + 2, w.shape().end());
  const json options = {{"stride", window_attribute(im, node, "strides", spatial, 1)},
                        {"padding", padding_of(im, node, spatial)},
                        {"dilation", window_attribute(im, node, "dilations", spatial, 1)},
                        {"groups", groups}};
  const Symbol y = im.layer(node, spatial_kind("conv", spatial),
                            {{"n_filter", w.size(0)}, {"filter_size", kernel}, {"act", ""}, {"options", options},
                             {"in_channels", channels}, {"use_bias", bias}},
                            {im.channels_last(node, x)}, weights);
  im.set_output(node, im.channels_first(node, y));
}

void conv_transpose(Importer& im, const pb::NodeProto& node) {
  const Symbol x = im.value(node, 0);
  const Tensor w = im.constant(node, 1);  // [C, O, k...]
  const int64_t spatial = rank_of(x) - 2;
  require(spatial >= 1 && spatial <= 3 && w.dim() == spatial + 2 && w.size(0) == x.shape()[1], im, node,
          "filters of shape " + w.shape().str() + " do not fit input " + x.shape().str());
  require(int_attribute(node, "group", 1) == 1, im, node, "a grouped ConvTranspose is not supported");
  for (int64_t p : ints_attribute(node, "output_padding", {}))
    require(p == 0, im, node, "output_padding is not supported");
  require(find_attribute(node, "output_shape") == nullptr, im, node, "output_shape is not supported (give pads)");
  json padding = padding_of(im, node, spatial);
  require(padding != "same", im, node, "SAME_UPPER is not supported for ConvTranspose (give pads)");
  const bool bias = im.num_inputs(node) > 2;
  std::vector<std::pair<std::string, Tensor>> weights{{"W", filters_last(w)}};  // [k..., O, C]
  if (bias) weights.push_back({"b", im.constant(node, 2)});
  const json options = {{"stride", window_attribute(im, node, "strides", spatial, 1)},
                        {"padding", padding},
                        {"dilation", window_attribute(im, node, "dilations", spatial, 1)},
                        {"groups", 1}};
  const Symbol y = im.layer(node, spatial_kind("deconv", spatial),
                            {{"n_filter", w.size(1)},
                             {"filter_size", std::vector<int64_t>(w.shape().begin() + 2, w.shape().end())},
                             {"act", ""},
                             {"options", options},
                             {"in_channels", w.size(0)},
                             {"use_bias", bias}},
                            {im.channels_last(node, x)}, weights);
  im.set_output(node, im.channels_first(node, y));
}

template <bool kMax>
void pool(Importer& im, const pb::NodeProto& node) {
  const Symbol x = im.value(node, 0);
  const int64_t spatial = rank_of(x) - 2;
  require(spatial >= 1 && spatial <= 3, im, node, "needs a 1, 2 or 3-d input");
  // What Strata's pooling layers do not take is computed by the pool's definition
  // (onnx_import_pool.cpp): MaxPool's Indices, integers (the layers pool the float types the file
  // declares, or does not declare), and what follows; Strata's average divides by the real
  // (unpadded) elements.
  const std::vector<int64_t> dilations = ints_attribute(node, "dilations", {});
  const auto pads = ints_attribute(node, "pads", {});
  const std::optional<DType> dtype = im.declared_dtype(node.input(0));
  // SAME where the stride passes the window (negative padding) is refused there,
  bool same_past_window = false;
  // and so is a window of padding alone (pads not smaller than the kernel)
  const auto k = ints_attribute(node, "kernel_shape", {}), s = ints_attribute(node, "strides", {});
  for (size_t i = 0; i < k.size() && i + 2 < x.shape().size(); ++i) {
    const int64_t in = x.shape()[i + 2], stride = i < s.size() ? s[i] : 1;
    if (string_attribute(node, "auto_pad", "NOTSET") == "SAME_UPPER" && stride >= 1)
      same_past_window = same_past_window || (in + stride - 1) / stride * stride - stride + k[i] < in;
    for (const size_t p : {i, i + k.size()})
      same_past_window = same_past_window || (p < pads.size() && pads[p] >= k[i]);
  }
  if (node.output_size() != 1 || (kMax && dtype && !is_floating(*dtype)) || int_attribute(node, "ceil_mode", 0) != 0 ||
      string_attribute(node, "auto_pad", "NOTSET") == "SAME_LOWER" || same_past_window ||
      std::any_of(dilations.begin(), dilations.end(), [](int64_t d) { return d != 1; }) ||
      (!kMax && int_attribute(node, "count_include_pad", 0) != 0 &&
       (string_attribute(node, "auto_pad", "NOTSET") != "NOTSET" ||
        std::any_of(pads.begin(), pads.end(), [](int64_t p) { return p != 0; }))))
    return pool_values(im, node);
  const json padding = padding_of(im, node, spatial);
  const json config = {{"filter_size", window_attribute(im, node, "kernel_shape", spatial, 0)},
                       {"options", {{"stride", window_attribute(im, node, "strides", spatial, 1)}, {"padding", padding}}}};
  const Symbol y = im.layer(node, spatial_kind(kMax ? "maxpool" : "meanpool", spatial), config, {im.channels_last(node, x)});
  im.set_output(node, im.channels_first(node, y));
}

// GlobalAveragePool / GlobalMaxPool: [N, C, ...] -> [N, C, 1, ...].
template <bool kMax>
void global_pool(Importer& im, const pb::NodeProto& node) {
  const Symbol x = im.value(node, 0);
  const int64_t spatial = rank_of(x) - 2;
  require(spatial >= 1 && spatial <= 3, im, node, "needs a 1, 2 or 3-d input");
  const Symbol y = im.layer(node, spatial_kind(kMax ? "globalmaxpool" : "globalmeanpool", spatial), json::object(),
                            {im.channels_last(node, x)});
  std::vector<int64_t> shape{x.shape()[1]};
  shape.resize(spatial + 1, 1);
  im.set_output(node, im.layer(node, "reshape", {{"shape", shape}}, {y}));
}

void batch_norm(Importer& im, const pb::NodeProto& node) {
  const Symbol x = im.value(node, 0);
  require(int_attribute(node, "training_mode", 0) == 0 && node.output_size() == 1, im, node,
          "training mode is not supported");
  const bool channels_first = rank_of(x) > 2;
  const Symbol in = channels_first ? im.channels_last(node, x) : x;
  const Symbol y = im.layer(node, "batchnorm",
                            {{"decay", 0.9}, {"epsilon", float_attribute(node, "epsilon", 1e-5f)}, {"act", ""},
                             {"num_features", x.shape()[1]}},
                            {in},
                            {{"gamma", im.constant(node, 1)},
                             {"beta", im.constant(node, 2)},
                             {"moving_mean", im.constant(node, 3)},
                             {"moving_var", im.constant(node, 4)}});
  im.set_output(node, channels_first ? im.channels_first(node, y) : y);
}

// LayerNormalization over the axes from `axis`, with constant scale and bias over the same axes,
// as Strata's LayerNorm layer; any other as a function (onnx_import_norm.cpp).
void layer_norm(Importer& im, const pb::NodeProto& node) {
  const Symbol x = im.value(node, 0);
  const int64_t r = rank_of(x);
  const int64_t axis = axis_attribute(im, node, -1, r);
  const bool center = im.num_inputs(node) > 2;
  if (axis < 1 || node.output_size() > 1 || !im.is_constant(node, 1) || (center && !im.is_constant(node, 2)))
    return layer_norm_values(im, node);
  require(int_attribute(node, "stash_type", 1) == 1, im, node, "only stash_type 1 (float) is supported");
  const Shape& s = x.shape();
  const Shape normalized(std::vector<int64_t>(s.begin() + axis, s.end()));
  std::vector<std::pair<std::string, Tensor>> weights{{"gamma", im.constant(node, 1)}};
  if (center) weights.push_back({"beta", im.constant(node, 2)});
  for (const auto& [n, t] : weights)
    if (t.shape() != normalized) return layer_norm_values(im, node);  // broadcast
  im.set_output(node, im.layer(node, "layernorm",
                               {{"act", ""}, {"epsilon", float_attribute(node, "epsilon", 1e-5f)}, {"begin_norm_axis", axis},
                                {"begin_params_axis", axis}, {"center", center}, {"scale", true}},
                               {x}, weights));
}

void instance_norm(Importer& im, const pb::NodeProto& node) {
  const Symbol x = im.value(node, 0);
  require(rank_of(x) >= 3, im, node, "needs an input with spatial axes");
  if (!im.is_constant(node, 1) || !im.is_constant(node, 2)) return group_norm_values(im, node);
  const Symbol y = im.layer(node, "instancenorm",
                            {{"act", ""}, {"epsilon", float_attribute(node, "epsilon", 1e-5f)}, {"num_features", x.shape()[1]}},
                            {im.channels_last(node, x)}, {{"gamma", im.constant(node, 1)}, {"beta", im.constant(node, 2)}});
  im.set_output(node, im.channels_first(node, y));
}

// A registered function of nn::Lambda (onnx_functions.cpp) with these parameters as weights.
void lambda(Importer& im, const pb::NodeProto& node, const std::string& function, const Symbol& x,
            const std::vector<std::pair<std::string, Tensor>>& params = {}) {
  im.set_output(node, im.function(node, function, {x}, params));
}

// An operator of the unary list (core/unary_ops.hpp's `onnx` column: Relu, Sigmoid, Erf, ...): the
// function onnx_functions.cpp registers for it, onnx.<op's name>.
void listed_unary(Importer& im, const pb::NodeProto& node) {
  for (const UnaryFunction& u : unary_functions())
    if (*u.onnx && !u.defaults && node.op_type() == u.onnx)
      return lambda(im, node, std::string("onnx.") + u.name, im.value(node, 0));
  require(false, im, node, "is not an operator of the unary list");
}

// `table` and the families of operators in files of their own.
std::map<std::string, OpImport> with_families(std::map<std::string, OpImport> table) {
  for (const auto* family : {&math_imports(), &reduce_imports(), &logic_imports(), &shape_imports(), &index_imports(),
                             &resize_imports(), &pool_imports(), &norm_imports()})
    table.insert(family->begin(), family->end());
  return table;
}

// `table` and the unary list's operators, those in `table` first (Selu, whose attributes are weights).
std::map<std::string, OpImport> with_listed_unary(std::map<std::string, OpImport> table) {
  for (const UnaryFunction& u : unary_functions())
    if (*u.onnx && !u.defaults) table.emplace(u.onnx, listed_unary);
  return table;
}

void leaky_relu(Importer& im, const pb::NodeProto& node) {
  lambda(im, node, "onnx.leaky_relu", im.value(node, 0), {{"alpha", scalar(float_attribute(node, "alpha", 0.01f))}});
}

void elu(Importer& im, const pb::NodeProto& node) {
  lambda(im, node, "onnx.elu", im.value(node, 0), {{"alpha", scalar(float_attribute(node, "alpha", 1.0f))}});
}

void hard_sigmoid(Importer& im, const pb::NodeProto& node) {
  lambda(im, node, "onnx.hard_sigmoid", im.value(node, 0),
         {{"alpha", scalar(float_attribute(node, "alpha", 0.2f))}, {"beta", scalar(float_attribute(node, "beta", 0.5f))}});
}

void clip(Importer& im, const pb::NodeProto& node) {
  auto bound = [&](int i, float fallback) {
    return im.num_inputs(node) > static_cast<size_t>(i) && !node.input(i).empty() ? im.constant(node, i).reshape({})
                                                                                  : scalar(fallback);
  };
  lambda(im, node, "onnx.clip", im.value(node, 0),
         {{"min", bound(1, -std::numeric_limits<float>::max())}, {"max", bound(2, std::numeric_limits<float>::max())}});
}

// Gemm: y = alpha A B' + beta C as a Dense layer (B and C constants, A not transposed).
void gemm(Importer& im, const pb::NodeProto& node) {
  if (!im.is_constant(node, 1)) return gemm_values(im, node);
  const Symbol a = im.value(node, 0);
  require(int_attribute(node, "transA", 0) == 0 && rank_of(a) == 2, im, node, "needs an untransposed 2-d A");
  Tensor w = im.constant(node, 1);
  require(w.dim() == 2 && w.dtype() == kFloat32, im, node, "needs a 2-d float32 B");
  if (int_attribute(node, "transB", 0) != 0) w = contiguous(transpose(w, 0, 1));
  require(w.size(0) == a.shape()[1], im, node, "B of shape " + w.shape().str() + " does not fit A " + a.shape().str());
  const float alpha = float_attribute(node, "alpha", 1.0f), beta = float_attribute(node, "beta", 1.0f);
  if (alpha != 1.0f) w = w * static_cast<double>(alpha);
  std::vector<std::pair<std::string, Tensor>> weights{{"W", w}};
  const bool bias = im.num_inputs(node) > 2;
  if (bias) {  // C broadcast: one value per output, or one for all
    const Tensor c = im.constant(node, 2);
    require(c.dtype() == kFloat32 && (c.numel() == w.size(1) || c.numel() == 1), im, node,
            "only a float32 C of one value per output is supported");
    std::vector<float> b = c.to_vector<float>();
    if (b.size() == 1) b.assign(w.size(1), b[0]);
    for (float& v : b) v *= beta;
    weights.push_back({"b", from_vector(b)});
  }
  im.set_output(node, im.layer(node, "dense", {{"units", w.size(1)}, {"act", ""}, {"in_units", w.size(0)}, {"use_bias", bias}},
                               {a}, weights));
}

// MatMul by a constant 2-d matrix: a Dense layer without bias (over the last axis); of two
// values (attention's q kᵀ and its weights times v): NumPy's batched matmul, a merge.
// The shape of NumPy's matmul of operands of these shapes (-1: the symbolic batch, counted as 1
// for the bound), checked to fit; 1-d operands are vectors, leading axes broadcast.
void matmul_shape(const Importer& im, const pb::NodeProto& node, Shape a, Shape b) {
  require(!a.empty() && !b.empty() && a.size() <= 8 && b.size() <= 8, im, node, "needs operands of rank 1 to 8");
  const std::string shapes = a.str() + " and " + b.str();
  if (a.size() == 1) a = Shape{1, a[0]};
  if (b.size() == 1) b = Shape{b[0], 1};
  const size_t ra = a.size(), rb = b.size(), r = std::max(ra, rb);
  require(a[ra - 1] == b[rb - 2] || a[ra - 1] == -1 || b[rb - 2] == -1, im, node, "operands " + shapes + " do not fit");
  // The product's size, bounded as a file's tensors are: small operands can make a huge one
  // ([1, n, 1] times [1, 1, n]).
  std::vector<int64_t> out;
  for (size_t i = 0; i + 2 < r; ++i) {
    const int64_t x = i + ra >= r ? a[i + ra - r] : 1, y = i + rb >= r ? b[i + rb - r] : 1;
    require(x == y || x == 1 || y == 1 || x == -1 || y == -1, im, node, "operands " + shapes + " do not broadcast");
    out.push_back(std::max({x, y, int64_t{1}}));
  }
  out.push_back(std::max<int64_t>(a[ra - 2], 1));
  out.push_back(std::max<int64_t>(b[rb - 1], 1));
  checked_size(out, 8, im.what() + ": " + node_str(node));
}

// MatMul: a constant 2-d float32 right operand as a Dense layer; any other operands (values,
// or a constant on either side) as NumPy's matmul.
void matmul(Importer& im, const pb::NodeProto& node) {
  const bool left = im.is_constant(node, 0), right = im.is_constant(node, 1);
  const Shape sa = left ? im.constant(node, 0).shape() : im.value(node, 0).shape(),
              sb = right ? im.constant(node, 1).shape() : im.value(node, 1).shape();
  matmul_shape(im, node, sa, sb);
  if (left) return lambda(im, node, "onnx.matmul_left", im.value(node, 1), {{"A", im.constant(node, 0)}});
  const Symbol a = im.value(node, 0);
  if (!right) return im.set_output(node, im.function(node, "onnx.matmul", {a, im.value(node, 1)}));
  const Tensor w = im.constant(node, 1);
  if (w.dim() != 2 || w.dtype() != kFloat32 || sa.size() < 2)
    return lambda(im, node, "onnx.matmul_right", a, {{"B", w}});
  require(w.size(0) == a.shape().back(), im, node, "needs a constant right operand that fits the input");
  im.set_output(node, im.layer(node, "dense", {{"units", w.size(1)}, {"act", ""}, {"in_units", w.size(0)}, {"use_bias", false}},
                               {a}, {{"W", w}}));
}

void flatten(Importer& im, const pb::NodeProto& node) {
  const Symbol x = im.value(node, 0);
  require(int_attribute(node, "axis", 1) == 1, im, node, "only axis 1 is supported");
  im.set_output(node, im.layer(node, "flatten", json::object(), {x}));
}

// Reshape keeping a symbolic batch axis (Strata's Reshape takes the shape after it); with every
// size fixed, any reshape (attention's [T, B·H, d] -> [B, H, T, d]): one of the first axis
// goes through an added axis of size 1, Reshape keeping that one.
void reshape_op(Importer& im, const pb::NodeProto& node) {
  const Symbol x = im.value(node, 0);
  const Tensor target = im.constant(node, 1);
  const Shape& in = x.shape();
  if (std::find(in.begin(), in.end(), -1) == in.end()) {
    const Shape out = reshaped(im, node, in, target);
    if (out[0] == in[0])
      return im.set_output(node, im.layer(node, "reshape", {{"shape", std::vector<int64_t>(out.begin() + 1, out.end())}}, {x}));
    require(out.size() < 8, im, node, "a reshape of the first axis needs a result of rank 7 at most");
    const Symbol y = im.layer(node, "reshape", {{"shape", out.vec()}}, {squeeze(im, node, x, {0}, true)});
    return im.set_output(node, squeeze(im, node, y, {0}, false));
  }
  require(target.dtype() == kInt64 && target.dim() == 1 && target.numel() >= 1 && target.numel() <= 8, im, node,
          "needs a constant int64 shape of 1 to 8 values");
  std::vector<int64_t> s = target.to_vector<int64_t>();
  // allowzero 1 (PyTorch's dynamo exporter writes it) differs only where the shape holds a 0
  require(int_attribute(node, "allowzero", 0) == 0 || std::count(s.begin(), s.end(), 0) == 0, im, node,
          "allowzero with a 0 in the shape is not supported");
  int64_t known = 1, rest = 1;  // the product of the input's non-batch axes, and of the target's
  for (int i = 1; i < in.size(); ++i) known *= in[i];
  std::vector<int64_t> after;
  for (int i = 1; i < static_cast<int>(s.size()); ++i) {
    int64_t d = s[i];
    if (d == 0) {
      require(i < in.size(), im, node, "a 0 in the shape copies an axis the input lacks");
      d = in[i];
    }
    require(d >= -1 && d <= (int64_t{1} << 31), im, node, "sizes must be -1 or from 0 to 2^31");
    require(d <= 0 || rest <= (int64_t{1} << 62) / d, im, node, "the shape holds too many elements");
    if (d > 0) rest *= d;
    after.push_back(d);
  }
  // The first axis must stay the batch: 0 copies it, -1 leaves it when the rest holds the row.
  require(s[0] == 0 || (s[0] == -1 && std::count(after.begin(), after.end(), -1) == 0 && rest == known), im, node,
          "only reshapes that keep the first (batch) axis are supported");
  im.set_output(node, im.layer(node, "reshape", {{"shape", after}}, {x}));
}

void transpose_op(Importer& im, const pb::NodeProto& node) {
  const Symbol x = im.value(node, 0);
  std::vector<int64_t> perm = ints_attribute(node, "perm", {});
  if (perm.empty())
    for (int64_t i = rank_of(x) - 1; i >= 0; --i) perm.push_back(i);
  require(static_cast<int64_t>(perm.size()) == rank_of(x), im, node, "perm must have one entry per axis");
  im.set_output(node, im.transpose(node, x, perm));
}

void concat(Importer& im, const pb::NodeProto& node) {
  std::vector<Symbol> xs;
  for (size_t i = 0; i < im.num_inputs(node); ++i) xs.push_back(im.value(node, static_cast<int>(i)));
  require(!xs.empty(), im, node, "needs inputs");
  if (xs.size() == 1) return im.set_output(node, xs[0]);
  const int64_t axis = axis_attribute(im, node, 1, rank_of(xs[0]));
  require(axis >= 1, im, node, "the axis must be one after the batch");
  im.set_output(node, im.layer(node, "concat", {{"concat_dim", axis}}, xs));
}

void identity(Importer& im, const pb::NodeProto& node) { im.set_output(node, im.value(node, 0)); }

// Gather from a constant table by integer ids: an Embedding; from a value by one constant index
// (attention's q, k, v out of one projection): a selection, the index the lambda's weight.
// Gather: one constant index from a value as a select, a constant 2-d float32 table as an
// Embedding layer, any other as a gather function (onnx_import_index.cpp).
void gather(Importer& im, const pb::NodeProto& node) {
  if (!im.is_constant(node, 0) && im.is_constant(node, 1) && im.constant(node, 1).dim() == 0) {
    const Symbol x = im.value(node, 0);
    const Tensor index = im.constant(node, 1);
    const int64_t axis = axis_attribute(im, node, 0, rank_of(x)), n = x.shape()[axis];
    // The index is kept as a float32 weight: exact up to 2^24.
    require(index.dtype() == kInt64 && axis < 8 && n > 0 && n <= (1 << 24), im, node,
            "from a computed value, one int64 index (a scalar) is supported on a fixed axis 0-7 of at most 2^24");
    const int64_t i = index.item<int64_t>();
    require(i >= -n && i < n, im, node, "index " + std::to_string(i) + " is out of range for " + x.shape().str());
    return lambda(im, node, "onnx.select." + std::to_string(axis), x, {{"index", scalar(static_cast<float>(i < 0 ? i + n : i))}});
  }
  if (!im.is_constant(node, 0) || im.is_constant(node, 1)) return gather_values(im, node);
  const Tensor table = im.constant(node, 0);
  if (int_attribute(node, "axis", 0) != 0 || table.dim() != 2 || table.dtype() != kFloat32)
    return gather_values(im, node);
  im.set_output(node, im.layer(node, "embedding", {{"vocabulary_size", table.size(0)}, {"embedding_size", table.size(1)}},
                               {im.value(node, 1)}, {{"embeddings", table}}));
}

// Squeeze / Unsqueeze with constant axes (an input since opset 13, an attribute before).
void squeeze_op(Importer& im, const pb::NodeProto& node) {
  const Symbol x = im.value(node, 0);
  std::vector<int64_t> axes = ints_attribute(node, "axes", {});
  if (im.num_inputs(node) > 1) axes = im.constant(node, 1).to_vector<int64_t>();
  const bool unsqueeze = node.op_type() == "Unsqueeze";
  require(!axes.empty() && axes.size() <= 8, im, node, "needs 1 to 8 constant axes");
  im.set_output(node, squeeze(im, node, x, axes, unsqueeze));
}

}  // namespace

// PRelu as Strata's layer, with a constant float32 slope shared (one value) or one per channel:
// on the last axis (channels-last, as Strata exports it) or on axis 1 of a channels-first value.
void prelu_layer(Importer& im, const pb::NodeProto& node, const Symbol& x, const Tensor& slope, bool last) {
  const int64_t r = rank_of(x), c = last ? x.shape()[r - 1] : x.shape()[1];
  const bool shared = slope.numel() == 1;
  const json config = {{"channel_shared", shared}, {"in_channels", shared ? -1 : c}};
  const std::vector<std::pair<std::string, Tensor>> w{{"alpha", slope.reshape({shared ? 1 : c})}};
  if (last) return im.set_output(node, im.layer(node, "prelu", config, {x}, w));
  im.set_output(node, im.channels_first(node, im.layer(node, "prelu", config, {im.channels_last(node, x)}, w)));
}

Symbol squeeze(Importer& im, const pb::NodeProto& node, const Symbol& x, std::vector<int64_t> axes, bool unsqueeze) {
  const int64_t rank = rank_of(x) + (unsqueeze ? static_cast<int64_t>(axes.size()) : 0);
  for (int64_t& a : axes) {
    if (a < 0) a += rank;
    require(a >= 0 && a < rank && (unsqueeze || x.shape()[a] == 1 || x.shape()[a] == -1), im, node,
            "axis " + std::to_string(a) + " out of range or not of size 1 in " + x.shape().str());
  }
  std::sort(axes.begin(), axes.end());
  require(std::adjacent_find(axes.begin(), axes.end()) == axes.end(), im, node, "an axis is repeated");
  // Unsqueeze in increasing order, squeeze in decreasing: each axis is then the tensor's own.
  if (!unsqueeze) std::reverse(axes.begin(), axes.end());
  Symbol y = x;
  for (int64_t a : axes) {
    require(a < 8, im, node, "axes past 7 are not supported");
    const std::string function = std::string(unsqueeze ? "onnx.unsqueeze." : "onnx.squeeze.") + std::to_string(a);
    y = im.function(node, function, {y});
  }
  return y;
}

const std::map<std::string, OpImport>& op_imports() {
  static const std::map<std::string, OpImport> table = with_listed_unary(with_families({
      {"Conv", conv},
      {"ConvTranspose", conv_transpose},
      {"MaxPool", pool<true>},
      {"AveragePool", pool<false>},
      {"GlobalMaxPool", global_pool<true>},
      {"GlobalAveragePool", global_pool<false>},
      {"BatchNormalization", batch_norm},
      {"LayerNormalization", layer_norm},
      {"InstanceNormalization", instance_norm},
      {"LeakyRelu", leaky_relu},
      {"Elu", elu},
      {"HardSigmoid", hard_sigmoid},
      {"Clip", clip},
      {"Gemm", gemm},
      {"MatMul", matmul},
      {"Einsum", einsum_op},
      {"Flatten", flatten},
      {"Reshape", reshape_op},
      {"Transpose", transpose_op},
      {"Concat", concat},
      {"Identity", identity},
      {"Gather", gather},
      {"Shape", shape_op},
      {"Slice", slice_op},
      {"Split", split_op},
      {"GatherElements", gather_elements_op},
      {"Squeeze", squeeze_op},
      {"Unsqueeze", squeeze_op},
      {"RNN", recurrent},
      {"LSTM", recurrent},
      {"GRU", recurrent},
  }));
  return table;
}

}  // namespace strata::onnx::detail
