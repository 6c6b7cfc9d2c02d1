// The importer's state while an ONNX graph becomes a static model: each ONNX value as a symbol
// of the model (in ONNX's own layout: channels-first where ONNX is), the graph's constants, and
// the weights to put into the layers once the model is built.
//
// Strata's convolutions, pools and batch norms are channels-last, so an ONNX Conv becomes
// Transpose -> Conv2d -> Transpose; element-wise operators and Strata's merges take the ONNX
// layout as it is.
#pragma once
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "strata/nn/model.hpp"
#include "onnx_proto.hpp"

namespace strata::onnx::detail {

class Importer {
 public:
  // `opset`: the file's version of the default domain (some operators' defaults depend on it);
  // `sizes`: the sizes given for the inputs' symbolic axes (ImportOptions::sizes).
  Importer(const pb::GraphProto& graph, const std::string& what, int64_t opset,
           std::map<std::string, int64_t> sizes = {});
  std::shared_ptr<nn::Model> run(const std::string& name);

  // --- for the operator handlers ---
  const std::string& what() const { return what_; }
  int64_t opset() const { return opset_; }
  size_t num_inputs(const pb::NodeProto& node) const;  // up to the last non-empty input
  // A tensor of the file (tensor_from), its errors naming the file.
  Tensor read_tensor(const pb::TensorProto& proto) const;
  // Input i as a value of the model; an Error naming the node when it is not one.
  nn::Symbol value(const pb::NodeProto& node, int i) const;
  bool is_constant(const pb::NodeProto& node, int i) const;
  // Input i as a constant (an initializer or a Constant node's value). A float16 one (held as
  // float32) only a Cast may read: arithmetic on it would not round as float16 does.
  Tensor constant(const pb::NodeProto& node, int i) const;
  // A layer of this class and config (nn/layer_config.hpp) called on args; its name comes from
  // the node's. `weights` ("W" -> tensor) are assigned once the model is built.
  nn::Symbol layer(const pb::NodeProto& node, const std::string& kind, const nlohmann::json& config,
                   const std::vector<nn::Symbol>& args, const std::vector<std::pair<std::string, Tensor>>& weights = {});
  // A registered function (onnx_functions.cpp) of args with these weights: a `lambda` layer of
  // one value, an `elementwiselambda` of several.
  nn::Symbol function(const pb::NodeProto& node, const std::string& function, const std::vector<nn::Symbol>& args,
                      const std::vector<std::pair<std::string, Tensor>>& weights = {});
  nn::Symbol transpose(const pb::NodeProto& node, const nn::Symbol& x, const std::vector<int64_t>& perm);
  nn::Symbol channels_last(const pb::NodeProto& node, const nn::Symbol& x);   // [N, C, ...] -> [N, ..., C]
  nn::Symbol channels_first(const pb::NodeProto& node, const nn::Symbol& x);  // and back
  // Output i of the node is `s`.
  void set_output(const pb::NodeProto& node, const nn::Symbol& s, int i = 0);
  // The node's only output is the constant `t` (computed from constants while importing).
  void set_constant(const pb::NodeProto& node, Tensor t);
  // Whether a node or the graph's outputs read this value.
  bool used(const std::string& value) const { return used_.count(value) > 0; }
  // The element type the file declares for a value (a graph input or output, its value_info, or
  // a Cast's target), where it declares one Strata holds (onnx_import_pool.cpp): the layers'
  // dtypes are not known while importing.
  std::optional<DType> declared_dtype(const std::string& value) const;
  // A symbolic batch N in shape arithmetic (onnx_import_symbolic_batch.cpp): Shape of a value whose first
  // axis is the batch gives int64 elements a + b·N, kept as two constants while Gather, Slice,
  // Unsqueeze, Concat, Cast, Identity, Add, Sub, Mul and Div by constants compute on them; a
  // Reshape to such a shape keeping N first, ConstantOfShape zeros and a recurrent node's zero
  // initial state of such a shape import. True when it imported the node.
  bool batch_arithmetic(const pb::NodeProto& node);
  // After each node: the shapes of its outputs (-1 for the batch) when a Transpose, Unsqueeze,
  // Squeeze or recurrent node moved the batch from the first axis, where the layers' shapes
  // (probed at batch 1) put it.
  void track_batch_axis(const pb::NodeProto& node);

 private:
  void add_constant(const std::string& name, Tensor t, bool float16 = false);
  std::string layer_name(const pb::NodeProto& node);

  const pb::GraphProto& graph_;
  std::string what_;
  int64_t opset_;
  std::map<std::string, int64_t> sizes_;
  std::set<std::string> float16_;  // constants stored as float16 in the file
  std::map<std::string, nn::Symbol> values_;
  std::map<std::string, Tensor> constants_;
  std::map<std::string, int> names_;
  std::set<std::string> used_;
  std::vector<std::pair<std::string, Tensor>> weights_;
  std::set<std::string> batch_shapes_;        // a + b·N: constants "<name>#a" and "<name>#b"
  std::map<std::string, Shape> batch_zeros_;  // zeros of a shape with N (-1) in it
  std::map<std::string, Shape> moved_;        // values whose batch left axis 0: their shape, {} unknown
  mutable std::map<std::string, int> declared_;  // elem_type by value, made at the first declared_dtype
  mutable bool declared_read_ = false;
};

// A float32 scalar (a lambda's parameter).
Tensor scalar(float v);
// The last opset at which the import reads `op` (its definition changed after it).
int64_t last_opset(const std::string& op);
// Throws "<what>: node '...' (Op): <message>" unless ok.
void require(bool ok, const Importer& im, const pb::NodeProto& node, const std::string& message);
// The node's "axis" attribute (or `fallback`), checked to be in [-rank, rank), as an index.
int64_t axis_attribute(const Importer& im, const pb::NodeProto& node, int64_t fallback, int64_t rank);

// The handlers, by ONNX operator (onnx_import_ops.cpp): each adds the layers of one node.
using OpImport = void (*)(Importer& im, const pb::NodeProto& node);
const std::map<std::string, OpImport>& op_imports();
// Families of operators joined to op_imports(): element-wise math and activations
// (onnx_import_math.cpp), reductions (onnx_import_reduce.cpp), comparisons, logic, Where and
// Cast (onnx_import_logic.cpp).
const std::map<std::string, OpImport>& math_imports();
const std::map<std::string, OpImport>& reduce_imports();
const std::map<std::string, OpImport>& logic_imports();
// Pad, Expand, Tile, DepthToSpace, Size, LRN, Dropout (onnx_import_shape.cpp), and the folds of
// ConstantOfShape and Range, joined to constant_folds().
const std::map<std::string, OpImport>& shape_imports();
// GatherND, ScatterElements and ScatterND, and Gather of a value by indices of any shape, computed
// or constant, or of a constant by computed indices (onnx_import_index.cpp).
const std::map<std::string, OpImport>& index_imports();
void gather_values(Importer& im, const pb::NodeProto& node);
// A registered function of the node's first `count` inputs, each a value or a constant (then a
// weight named names[i]), `extra` weights after those; its name gets ".c<mask>" (with_constants),
// the bits of the constant operands, and function_operands puts the operands back in order.
nn::Symbol operand_function(Importer& im, const pb::NodeProto& node, const std::string& fn, int count,
                            const std::vector<std::string>& names,
                            const std::vector<std::pair<std::string, Tensor>>& extra = {});
std::string with_constants(const std::string& fn, int constants);
std::vector<Tensor> function_operands(const std::vector<Tensor>& xs, const std::vector<Tensor>& w, int constants,
                                      int count);
int64_t rank_of_input(Importer& im, const pb::NodeProto& node, int i);
// LayerNormalization over any axes from `axis` with scale and bias values or constants, and its
// Mean and InvStdDev outputs (onnx_import_norm.cpp).
void layer_norm_values(Importer& im, const pb::NodeProto& node);
// GroupNormalization, and InstanceNormalization with a computed scale or bias, as functions.
void group_norm_values(Importer& im, const pb::NodeProto& node);
const std::map<std::string, OpImport>& norm_imports();
// MaxPool, AveragePool and LpPool by their definition, for what Strata's pooling layers do not
// take (dilations, ceil_mode, count_include_pad with padding, SAME_LOWER); LpPool and
// GlobalLpPool (onnx_import_pool.cpp).
void pool_values(Importer& im, const pb::NodeProto& node);
const std::map<std::string, OpImport>& pool_imports();
// Einsum of one or two operands (onnx_import_einsum.cpp).
void einsum_op(Importer& im, const pb::NodeProto& node);
// Resize (onnx_import_resize.cpp).
const std::map<std::string, OpImport>& resize_imports();
// Gemm of two computed operands (onnx_import_shape.cpp).
void gemm_values(Importer& im, const pb::NodeProto& node);
// A Cast node's target dtype, refused by name when Strata has none for it.
DType cast_target(const Importer& im, const pb::NodeProto& node);
// Strata's dtype of an ONNX element type (Cast's targets, onnx_import_logic.cpp), if it has one.
std::optional<DType> element_dtype(int32_t elem_type);
// A PRelu node as Strata's PRelu layer: a float32 slope of one value or one per channel, the
// channels `last` or on axis 1 (onnx_import_ops.cpp).
void prelu_layer(Importer& im, const pb::NodeProto& node, const nn::Symbol& x, const Tensor& slope, bool last);
// Operators computed while importing when all their inputs are constants (shape arithmetic,
// onnx_import_constants.cpp): the node's output becomes a constant of the graph.
using ConstantFold = Tensor (*)(const Importer& im, const pb::NodeProto& node);
const std::map<std::string, ConstantFold>& constant_folds();
const std::map<std::string, ConstantFold>& shape_folds();
// An Unsqueeze's or Squeeze's axes as the file gives them: input 1 from opset 13, the attribute before.
std::vector<int64_t> squeeze_axes_given(const Importer& im, const pb::NodeProto& node);
// A Reshape node's target for an input of fixed shape `in` (0 copies an axis, -1 takes the rest),
// checked to hold the same elements.
Shape reshaped(const Importer& im, const pb::NodeProto& node, const Shape& in, const Tensor& target);
// A Slice node's ranges (starts, ends, axes and steps as constant inputs, opset 10 on; positive
// steps) on a value of this shape, its bounds clamped into the axes as ONNX does
// (onnx_import_select.cpp). The sliced axes must have a fixed size.
struct SliceRange {
  int64_t axis, start, end, step;
  int64_t length() const { return end > start ? (end - start + step - 1) / step : 0; }
};
std::vector<SliceRange> slice_ranges(const Importer& im, const pb::NodeProto& node, const Shape& shape);
// Slice, Split and GatherElements on values (onnx_import_select.cpp).
void slice_op(Importer& im, const pb::NodeProto& node);
void split_op(Importer& im, const pb::NodeProto& node);
void gather_elements_op(Importer& im, const pb::NodeProto& node);
// Shape of a value whose shape is fixed: a constant (onnx_import_constants.cpp).
void shape_op(Importer& im, const pb::NodeProto& node);
// RNN, LSTM and GRU (onnx_import_recurrent.cpp).
void recurrent(Importer& im, const pb::NodeProto& node);
// Squeeze and Unsqueeze, as lambdas (also used by the recurrent import).
nn::Symbol squeeze(Importer& im, const pb::NodeProto& node, const nn::Symbol& x, std::vector<int64_t> axes,
                   bool unsqueeze);

}  // namespace strata::onnx::detail
