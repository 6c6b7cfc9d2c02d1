// TFRecord framing, the container of TensorBoard event files: each record is its length
// (uint64, little-endian), the masked CRC32C of those 8 bytes, the data, and the data's masked
// CRC32C. TensorBoard skips a file at the first record whose checksum fails.
#pragma once
#include <cstdint>
#include <ostream>
#include <string_view>

namespace strata::train::detail {

// CRC32C (Castagnoli), as in TensorFlow's lib/hash/crc32c.
uint32_t crc32c(std::string_view bytes);
// TensorFlow's mask: rotate right by 15 and add a constant, so that a CRC of data that itself
// holds CRCs is not trivially related to them.
uint32_t masked_crc32c(std::string_view bytes);
void write_tfrecord(std::ostream& out, std::string_view data);

}  // namespace strata::train::detail
