#include "proto_message.hpp"

#include <bit>

namespace strata::train::detail {

void ProtoMessage::put_varint(uint64_t value) {
  while (value >= 0x80) {
    out_.push_back(static_cast<char>((value & 0x7F) | 0x80));
    value >>= 7;
  }
  out_.push_back(static_cast<char>(value));
}

void ProtoMessage::put_fixed(uint64_t bits, int bytes) {
  for (int i = 0; i < bytes; ++i) out_.push_back(static_cast<char>((bits >> (8 * i)) & 0xFF));
}

ProtoMessage& ProtoMessage::varint(int field, uint64_t value) {
  key(field, 0);
  put_varint(value);
  return *this;
}

ProtoMessage& ProtoMessage::float64(int field, double value) {
  key(field, 1);
  put_fixed(std::bit_cast<uint64_t>(value), 8);
  return *this;
}

ProtoMessage& ProtoMessage::float32(int field, float value) {
  key(field, 5);
  put_fixed(std::bit_cast<uint32_t>(value), 4);
  return *this;
}

ProtoMessage& ProtoMessage::bytes(int field, std::string_view value) {
  key(field, 2);
  put_varint(value.size());
  out_.append(value);
  return *this;
}

ProtoMessage& ProtoMessage::packed_float64(int field, const std::vector<double>& values) {
  key(field, 2);
  put_varint(values.size() * 8);
  for (double v : values) put_fixed(std::bit_cast<uint64_t>(v), 8);
  return *this;
}

}  // namespace strata::train::detail
