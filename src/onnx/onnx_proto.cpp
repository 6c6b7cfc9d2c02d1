#include "onnx_proto.hpp"

#include <cstring>

#include "strata/core/checked_size.hpp"
#include "strata/core/error.hpp"
#include "strata/core/factory.hpp"

namespace strata::onnx::detail {

namespace {

pb::AttributeProto& add_attribute(pb::NodeProto& node, const std::string& name, pb::AttributeProto::AttributeType t) {
  pb::AttributeProto* a = node.add_attribute();
  a->set_name(name);
  a->set_type(t);
  return *a;
}

int32_t element_type(DType dtype, const std::string& what) {
  if (dtype == kFloat32) return pb::TensorProto::FLOAT;
  if (dtype == kInt64) return pb::TensorProto::INT64;
  throw Error(what + ": ONNX export takes float32 and int64 tensors, got " + dtype_name(dtype));
}

}  // namespace

void set_int(pb::NodeProto& node, const std::string& name, int64_t value) {
  add_attribute(node, name, pb::AttributeProto::INT).set_i(value);
}
void set_float(pb::NodeProto& node, const std::string& name, float value) {
  add_attribute(node, name, pb::AttributeProto::FLOAT).set_f(value);
}
void set_ints(pb::NodeProto& node, const std::string& name, const std::vector<int64_t>& values) {
  auto& a = add_attribute(node, name, pb::AttributeProto::INTS);
  for (int64_t v : values) a.add_ints(v);
}
void set_string(pb::NodeProto& node, const std::string& name, const std::string& value) {
  add_attribute(node, name, pb::AttributeProto::STRING).set_s(value);
}

void set_tensor(pb::TensorProto& proto, const std::string& name, const Tensor& t) {
  proto.set_name(name);
  proto.set_data_type(element_type(t.dtype(), name));
  for (int64_t d : t.shape()) proto.add_dims(d);
  if (t.dtype() == kFloat32) {
    const std::vector<float> v = t.to_vector<float>();
    proto.set_raw_data(std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(float)));
  } else {
    const std::vector<int64_t> v = t.to_vector<int64_t>();
    proto.set_raw_data(std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(int64_t)));
  }
}

void set_value_info(pb::ValueInfoProto& info, const std::string& name, DType dtype, const Shape& shape) {
  info.set_name(name);
  auto* tensor_type = info.mutable_type()->mutable_tensor_type();
  tensor_type->set_elem_type(element_type(dtype, name));
  auto* dims = tensor_type->mutable_shape();
  for (int64_t d : shape) {
    if (d < 0)
      dims->add_dim()->set_dim_param("N");
    else
      dims->add_dim()->set_dim_value(d);
  }
}

const pb::AttributeProto* find_attribute(const pb::NodeProto& node, const std::string& name) {
  for (const auto& a : node.attribute())
    if (a.name() == name) return &a;
  return nullptr;
}

std::string node_str(const pb::NodeProto& node) {
  return "node '" + node.name() + "' (" + node.op_type() + ")";
}

namespace {
const pb::AttributeProto* typed(const pb::NodeProto& node, const std::string& name, pb::AttributeProto::AttributeType t,
                                const char* type_name) {
  const pb::AttributeProto* a = find_attribute(node, name);
  STRATA_CHECK(a == nullptr || a->type() == t, node_str(node), ": attribute '", name, "' must be ", type_name);
  return a;
}
}  // namespace

int64_t int_attribute(const pb::NodeProto& node, const std::string& name, int64_t fallback) {
  const auto* a = typed(node, name, pb::AttributeProto::INT, "an integer");
  return a ? a->i() : fallback;
}
float float_attribute(const pb::NodeProto& node, const std::string& name, float fallback) {
  const auto* a = typed(node, name, pb::AttributeProto::FLOAT, "a float");
  return a ? a->f() : fallback;
}
std::vector<int64_t> ints_attribute(const pb::NodeProto& node, const std::string& name,
                                    const std::vector<int64_t>& fallback) {
  const auto* a = typed(node, name, pb::AttributeProto::INTS, "a list of integers");
  return a ? std::vector<int64_t>(a->ints().begin(), a->ints().end()) : fallback;
}
std::string string_attribute(const pb::NodeProto& node, const std::string& name, const std::string& fallback) {
  const auto* a = typed(node, name, pb::AttributeProto::STRING, "a string");
  return a ? a->s() : fallback;
}

namespace {
// The values of `p`, from its raw bytes or its typed field, checked against its dims' `count`.
template <class T, class Field>
Tensor values(const pb::TensorProto& p, const Shape& shape, uint64_t count, const Field& field, const std::string& what) {
  std::vector<T> v(count);
  if (p.has_raw_data()) {
    const uint64_t bytes = count * sizeof(T);
    STRATA_CHECK(p.raw_data().size() == bytes, what, ": ", p.raw_data().size(), " bytes of data for dims holding ",
                 bytes);
    std::memcpy(v.data(), p.raw_data().data(), bytes);
  } else {
    STRATA_CHECK(static_cast<uint64_t>(field.size()) == count, what, ": ", field.size(), " values for dims holding ",
                 count);
    std::copy(field.begin(), field.end(), v.begin());
  }
  return from_vector(v, shape);
}
}  // namespace

Tensor tensor_from(const pb::TensorProto& p) {
  const std::string what = "initializer '" + p.name() + "'";
  STRATA_CHECK(p.data_location() != pb::TensorProto::EXTERNAL, what, ": external data is not supported");
  STRATA_CHECK(p.data_type() == pb::TensorProto::FLOAT || p.data_type() == pb::TensorProto::INT64, what,
               ": element type ", p.data_type(), " is not supported (float32 and int64 are)");
  const size_t item = p.data_type() == pb::TensorProto::FLOAT ? 4 : 8;
  const std::vector<int64_t> dims(p.dims().begin(), p.dims().end());
  const CheckedSize size = checked_size(dims, item, what);  // before anything is allocated
  const Shape& shape = size.shape;
  const uint64_t count = static_cast<uint64_t>(size.numel);
  return p.data_type() == pb::TensorProto::FLOAT ? values<float>(p, shape, count, p.float_data(), what)
                                                : values<int64_t>(p, shape, count, p.int64_data(), what);
}

}  // namespace strata::onnx::detail
