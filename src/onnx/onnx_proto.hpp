// Building and reading ONNX protobuf messages (Debian's libonnx proto library, ONNX_ML build):
// the one place that includes onnx's generated headers, so protobuf stays inside src/onnx.
#pragma once
#include <onnx/onnx_pb.h>

#include <cstdint>
#include <string>
#include <vector>

#include "strata/core/tensor.hpp"

namespace strata::onnx::detail {

namespace pb = ::onnx;

// Attributes of a node under construction.
void set_int(pb::NodeProto& node, const std::string& name, int64_t value);
void set_float(pb::NodeProto& node, const std::string& name, float value);
void set_ints(pb::NodeProto& node, const std::string& name, const std::vector<int64_t>& values);
void set_string(pb::NodeProto& node, const std::string& name, const std::string& value);

// A float32 or int64 tensor as an initializer (raw little-endian data, as ONNX stores it).
void set_tensor(pb::TensorProto& proto, const std::string& name, const Tensor& t);
// A value_info with this element type and shape (-1: the symbolic batch axis "N").
void set_value_info(pb::ValueInfoProto& info, const std::string& name, DType dtype, const Shape& shape);

// Reading attributes by name: the value, or `fallback` when the node lacks it. The node and what
// was expected are named in errors.
const pb::AttributeProto* find_attribute(const pb::NodeProto& node, const std::string& name);
int64_t int_attribute(const pb::NodeProto& node, const std::string& name, int64_t fallback);
float float_attribute(const pb::NodeProto& node, const std::string& name, float fallback);
std::vector<int64_t> ints_attribute(const pb::NodeProto& node, const std::string& name,
                                    const std::vector<int64_t>& fallback);
std::string string_attribute(const pb::NodeProto& node, const std::string& name, const std::string& fallback);
// "node 'conv_1' (Conv)" for errors.
std::string node_str(const pb::NodeProto& node);

// An initializer's values as a Strata tensor; its byte count is checked against its dims and
// against limits().max_tensor_bytes. Float, double, int64, int32, uint8 and bool keep their type;
// float16 becomes float32 (exactly; the importer lets only a Cast read it, since arithmetic in
// float32 would round differently); other types are refused by name.
Tensor tensor_from(const pb::TensorProto& proto);

}  // namespace strata::onnx::detail
