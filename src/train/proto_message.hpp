// A protobuf message written field by field, enough for TensorBoard's Event and Summary: the
// few messages are encoded by hand rather than generated, so the library needs no protoc step
// for them (docs/serving.md, "TensorBoard").
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace strata::train::detail {

class ProtoMessage {
 public:
  ProtoMessage& varint(int field, uint64_t value);
  ProtoMessage& float64(int field, double value);  // wire type 1 (fixed64)
  ProtoMessage& float32(int field, float value);   // wire type 5 (fixed32)
  ProtoMessage& bytes(int field, std::string_view value);
  ProtoMessage& message(int field, const ProtoMessage& value) { return bytes(field, value.str()); }
  ProtoMessage& packed_float64(int field, const std::vector<double>& values);
  const std::string& str() const { return out_; }

 private:
  void key(int field, int wire_type) { put_varint((static_cast<uint64_t>(field) << 3) | wire_type); }
  void put_varint(uint64_t value);
  void put_fixed(uint64_t bits, int bytes);
  std::string out_;
};

}  // namespace strata::train::detail
