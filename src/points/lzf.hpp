// LZF (Marc Lehmann's liblzf format), which PCD's binary_compressed data uses: a stream of
// literal runs (a byte < 32: that many + 1 bytes follow) and back-references (3 bits of length,
// 13 bits of distance, an extra length byte when the 3 bits are all set).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

namespace strata::points::detail {

// Decompresses `compressed` into exactly `size` bytes. Every run and reference is checked
// against both buffers; throws strata::Error "<where>: ..." for a stream that is corrupt or
// does not come to `size` bytes.
std::string lzf_decompress(std::string_view compressed, size_t size, const std::string& where);

// The most one compressed byte can stand for (a 3-byte reference of 264 bytes): a claimed
// uncompressed size past compressed bytes * this is refused before allocating.
inline constexpr size_t kLzfMaxRatio = 88;

// Compresses `bytes` (greedy, a hash of the next three bytes finds earlier matches).
std::string lzf_compress(std::string_view bytes);

}  // namespace strata::points::detail
