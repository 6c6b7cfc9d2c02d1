// GroupNormalization, InstanceNormalization with computed scale or bias, and LayerNormalization
// where Strata's LayerNorm layer does not fit (onnx_import_ops.cpp takes the common case): an axis of 0 (a fixed batch
// normalised together), scale and bias computed or broadcast, and the Mean and InvStdDev outputs. Computed as ONNX
// defines it, in float32 (stash_type 1): Mean = mean(X), D = X - Mean, InvStdDev = 1 / sqrt(mean(D²) + epsilon), Y = D
// · InvStdDev · Scale + B, the means over the axes from `axis` on.
#include <numeric>

#include "strata/core/error.hpp"
#include "strata/core/factory.hpp"
#include "strata/nn/functions.hpp"
#include "strata/ops/elementwise.hpp"
#include "strata/ops/reduce.hpp"
#include "strata/ops/shape.hpp"

#include "onnx_import.hpp"

namespace strata::onnx::detail {

namespace {

using Ws = const std::vector<Tensor>&;
constexpr int64_t kMaxNormRank = 8;

Axes from_axis(const Tensor& x, int64_t axis) {
  STRATA_CHECK(axis < x.dim(), "onnx.layer_norm: no axis ", axis, " in ", x.shape().str());
  Axes axes(static_cast<size_t>(x.dim() - axis));
  std::iota(axes.begin(), axes.end(), axis);
  return axes;
}

// D = X - Mean and InvStdDev, epsilon the last weight.
std::pair<Tensor, Tensor> centred(const Tensor& x, int64_t axis, Ws w) {
  const Axes axes = from_axis(x, axis);
  const Tensor d = x - mean(x, axes, true);
  return {d, rsqrt(mean(d * d, axes, true) + w.back())};
}

// GroupNormalization (and InstanceNormalization, a group per channel) of x [N, C, ...]: each
// sample's groups of C / G channels normalised together; scale and bias per channel, or (opsets
// 18 to 20) per group. The groups are the length of the weight before epsilon.
Tensor group_norm(const Tensor& x, const Tensor& scale, const Tensor& bias, Ws w, bool per_channel) {
  const int64_t groups = w.at(w.size() - 2).numel();
  STRATA_CHECK(x.dim() >= 2 && groups >= 1 && x.size(1) % groups == 0, "onnx.group_norm: ", groups,
               " groups do not divide the channels of ", x.shape().str());
  const int64_t n = x.size(0), c = x.size(1);
  const auto [d, inv] = centred(reshape(x, Shape{n, groups, n * groups == 0 ? 0 : x.numel() / (n * groups)}), 2, w);
  std::vector<int64_t> channel(static_cast<size_t>(x.dim()), 1);
  channel[1] = c;
  const auto per_channel_of = [&](const Tensor& t) {
    const Tensor v =
        per_channel ? t : reshape(broadcast_to(reshape(t, Shape{groups, 1}), Shape{groups, c / groups}), Shape{c});
    return reshape(v, Shape(channel));
  };
  return reshape(d * inv, x.shape()) * per_channel_of(scale) + per_channel_of(bias);
}

struct NormImportRegistration {
  NormImportRegistration() {
    for (int c = 0; c < 8; ++c)
      for (const bool per_channel : {false, true})
        nn::register_function(
            with_constants(std::string("onnx.group_norm") + (per_channel ? ".channels" : ".groups"), c),
            [=](const std::vector<Tensor>& xs, Ws w) {
              const auto o = function_operands(xs, w, c, 3);
              return group_norm(o[0], o[1], o[2], w, per_channel);
            });
    for (int64_t axis = 0; axis < kMaxNormRank; ++axis) {
      const std::string a = std::to_string(axis);
      for (int count = 2; count <= 3; ++count)
        for (int c = 0; c < (1 << count); ++c)
          nn::register_function(with_constants("onnx.layer_norm." + a + "." + std::to_string(count), c),
                                [=](const std::vector<Tensor>& xs, Ws w) {
                                  const auto o = function_operands(xs, w, c, count);
                                  const auto [d, inv] = centred(o[0], axis, w);
                                  const Tensor y = d * inv * o[1];
                                  return count == 3 ? y + o[2] : y;
                                });
      nn::register_function("onnx.layer_norm_mean." + a,
                            [=](const Tensor& x) { return mean(x, from_axis(x, axis), true); });
      nn::register_function("onnx.layer_norm_inv_std." + a,
                            [=](const Tensor& x, Ws w) { return centred(x, axis, w).second; });
    }
  }
};
const NormImportRegistration norm_import_registration;

}  // namespace

void layer_norm_values(Importer& im, const pb::NodeProto& node) {
  const nn::Symbol x = im.value(node, 0);
  const int64_t rank = static_cast<int64_t>(x.shape().size()), axis = axis_attribute(im, node, -1, rank);
  require(axis < kMaxNormRank, im, node, "axes past 7 are not supported");
  require(int_attribute(node, "stash_type", 1) == 1, im, node, "only stash_type 1 (float) is supported");
  const int count = static_cast<int>(im.num_inputs(node));
  require(count == 2 || count == 3, im, node, "needs a scale, and a bias or none");
  for (int i = 1; i < count; ++i)  // broadcast onto the normalized axes, not beyond them
    require(rank_of_input(im, node, i) <= rank - axis, im, node,
            "scale and bias must broadcast to the normalized axes");
  const std::vector<std::pair<std::string, Tensor>> epsilon{
      {"epsilon", scalar(float_attribute(node, "epsilon", 1e-5f))}};
  const std::string a = std::to_string(axis);
  im.set_output(node, operand_function(im, node, "onnx.layer_norm." + a + "." + std::to_string(count), count,
                                       {"X", "Scale", "B"}, epsilon));
  if (node.output_size() > 1 && !node.output(1).empty())
    im.set_output(node, im.function(node, "onnx.layer_norm_mean." + a, {x}), 1);
  if (node.output_size() > 2 && !node.output(2).empty())
    im.set_output(node, im.function(node, "onnx.layer_norm_inv_std." + a, {x}, epsilon), 2);
}

void group_norm_values(Importer& im, const pb::NodeProto& node) {
  const nn::Symbol x = im.value(node, 0);
  const int64_t rank = static_cast<int64_t>(x.shape().size()), c = rank >= 2 ? x.shape()[1] : 0;
  require(rank >= 3 && c >= 1, im, node, "needs an input [N, C, ...] with fixed channels");
  require(static_cast<int>(im.num_inputs(node)) == 3, im, node, "needs a scale and a bias");
  require(int_attribute(node, "stash_type", 1) == 1, im, node, "only stash_type 1 (float) is supported");
  const bool instance = node.op_type() == "InstanceNormalization";
  const int64_t groups = instance ? c : int_attribute(node, "num_groups", 0);
  require(groups >= 1 && c % groups == 0, im, node, "num_groups must divide the " + std::to_string(c) + " channels");
  const bool per_channel = instance || im.opset() >= 21;  // GroupNormalization-18: a scale per group
  const std::vector<std::pair<std::string, Tensor>> extra{{"groups", zeros(Shape{groups}, kInt64)},
                                                          {"epsilon", scalar(float_attribute(node, "epsilon", 1e-5f))}};
  im.set_output(node,
                operand_function(im, node, std::string("onnx.group_norm") + (per_channel ? ".channels" : ".groups"), 3,
                                 {"X", "scale", "B"}, extra));
}

const std::map<std::string, OpImport>& norm_imports() {
  static const std::map<std::string, OpImport> table = {{"GroupNormalization", group_norm_values}};
  return table;
}

}  // namespace strata::onnx::detail
