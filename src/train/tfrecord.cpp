#include "tfrecord.hpp"

#include <array>

namespace strata::train::detail {
namespace {

constexpr std::array<uint32_t, 256> make_crc32c_table() {
  std::array<uint32_t, 256> table{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) != 0 ? (c >> 1) ^ 0x82F63B78u : c >> 1;  // reflected polynomial
    table[i] = c;
  }
  return table;
}
constexpr auto kCrc32cTable = make_crc32c_table();

void put_le(std::ostream& out, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out.put(static_cast<char>((value >> (8 * i)) & 0xFF));
}

}  // namespace

uint32_t crc32c(std::string_view bytes) {
  uint32_t c = 0xFFFFFFFFu;
  for (unsigned char b : bytes) c = kCrc32cTable[(c ^ b) & 0xFF] ^ (c >> 8);
  return c ^ 0xFFFFFFFFu;
}

uint32_t masked_crc32c(std::string_view bytes) {
  const uint32_t c = crc32c(bytes);
  return ((c >> 15) | (c << 17)) + 0xA282EAD8u;
}

void write_tfrecord(std::ostream& out, std::string_view data) {
  char length[8];
  for (int i = 0; i < 8; ++i) length[i] = static_cast<char>((uint64_t{data.size()} >> (8 * i)) & 0xFF);
  out.write(length, 8);
  put_le(out, masked_crc32c(std::string_view(length, 8)), 4);
  out.write(data.data(), static_cast<std::streamsize>(data.size()));
  put_le(out, masked_crc32c(data), 4);
}

}  // namespace strata::train::detail
