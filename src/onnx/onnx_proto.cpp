#include "onnx_proto.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

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
// The values of `p` as T, from its raw bytes (of `Stored`, little-endian as ONNX writes them) or
// its typed field, checked against its dims' `count`; `convert` maps a stored value to T.
template <class T, class Stored, class Field, class Convert>
std::vector<T> values(const pb::TensorProto& p, uint64_t count, const Field& field, const std::string& what,
                      Convert convert) {
  std::vector<T> v(count);
  if (p.has_raw_data()) {
    const uint64_t bytes = count * sizeof(Stored);
    STRATA_CHECK(p.raw_data().size() == bytes, what, ": ", p.raw_data().size(), " bytes of data for dims holding ",
                 bytes);
    for (uint64_t i = 0; i < count; ++i) {
      Stored s;
      std::memcpy(&s, p.raw_data().data() + i * sizeof(Stored), sizeof(Stored));
      v[i] = convert(s);
    }
  } else {
    STRATA_CHECK(static_cast<uint64_t>(field.size()) == count, what, ": ", field.size(), " values for dims holding ",
                 count);
    for (uint64_t i = 0; i < count; ++i) v[i] = convert(static_cast<Stored>(field[static_cast<int>(i)]));
  }
  return v;
}

template <class T>
std::vector<T> same(const pb::TensorProto& p, uint64_t count, const auto& field, const std::string& what) {
  return values<T, T>(p, count, field, what, [](T x) { return x; });
}

// IEEE binary16 -> float32, exact: every half value is a float.
float half_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000) << 16;
  const int exponent = (h >> 10) & 0x1f;
  const uint32_t mantissa = h & 0x3ff;
  float magnitude;
  if (exponent == 0x1f)
    magnitude = mantissa == 0 ? std::numeric_limits<float>::infinity() : std::numeric_limits<float>::quiet_NaN();
  else if (exponent == 0)
    magnitude = std::ldexp(static_cast<float>(mantissa), -24);  // subnormal
  else
    magnitude = std::ldexp(static_cast<float>(mantissa | 0x400), exponent - 25);
  uint32_t bits;
  std::memcpy(&bits, &magnitude, sizeof(bits));
  bits |= sign;
  float out;
  std::memcpy(&out, &bits, sizeof(out));
  return out;
}

size_t stored_size(int32_t type) {
  switch (type) {
    case pb::TensorProto::FLOAT: case pb::TensorProto::INT32: return 4;
    case pb::TensorProto::INT64: case pb::TensorProto::DOUBLE: return 8;
    case pb::TensorProto::FLOAT16: return 2;
    case pb::TensorProto::UINT8: case pb::TensorProto::BOOL: return 1;
    default: return 0;
  }
}
}  // namespace

Tensor tensor_from(const pb::TensorProto& p) {
  const std::string what = "initializer '" + p.name() + "'";
  STRATA_CHECK(p.data_location() != pb::TensorProto::EXTERNAL, what, ": external data is not supported");
  const int32_t type = p.data_type();
  const size_t item = stored_size(type);
  STRATA_CHECK(item > 0, what, ": element type ",
               pb::TensorProto::DataType_IsValid(type) ? pb::TensorProto::DataType_Name(type) : std::to_string(type),
               " is not supported (float, float16, double, int64, int32, uint8 and bool are)");
  const std::vector<int64_t> dims(p.dims().begin(), p.dims().end());
  // Bounded by the larger of the stored and the held item (float16 is held as float32).
  const CheckedSize size = checked_size(dims, std::max<size_t>(item, 4), what);  // before anything is allocated
  const Shape& shape = size.shape;
  const uint64_t count = static_cast<uint64_t>(size.numel);
  switch (type) {
    case pb::TensorProto::FLOAT: return from_vector(same<float>(p, count, p.float_data(), what), shape);
    case pb::TensorProto::DOUBLE: return from_vector(same<double>(p, count, p.double_data(), what), shape);
    case pb::TensorProto::INT64: return from_vector(same<int64_t>(p, count, p.int64_data(), what), shape);
    case pb::TensorProto::INT32: return from_vector(same<int32_t>(p, count, p.int32_data(), what), shape);
    // The typed field of the narrow types is int32_data, one value (a half's bits) per entry.
    case pb::TensorProto::UINT8:
      return from_vector(values<uint8_t, uint8_t>(p, count, p.int32_data(), what, [](uint8_t x) { return x; }), shape);
    case pb::TensorProto::BOOL:
      return from_vector(values<bool, uint8_t>(p, count, p.int32_data(), what, [](uint8_t x) { return x != 0; }), shape);
    default:  // FLOAT16
      return from_vector(values<float, uint16_t>(p, count, p.int32_data(), what, half_to_float), shape);
  }
}

}  // namespace strata::onnx::detail
