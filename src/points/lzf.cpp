#include "lzf.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

#include "strata/core/error.hpp"

namespace strata::points::detail {

std::string lzf_decompress(std::string_view compressed, size_t size, const std::string& where) {
  STRATA_CHECK(size / kLzfMaxRatio <= compressed.size(), where, ": ", compressed.size(),
               " compressed bytes cannot hold ", size, " bytes");
  std::string out(size, '\0');
  const auto* in = reinterpret_cast<const unsigned char*>(compressed.data());
  size_t ip = 0, op = 0;
  const size_t in_end = compressed.size();
  while (ip < in_end) {
    const unsigned ctrl = in[ip++];
    if (ctrl < 32) {  // a literal run of ctrl + 1 bytes
      const size_t n = ctrl + 1;
      STRATA_CHECK(n <= in_end - ip && n <= size - op, where, ": LZF literal run of ", n, " bytes at offset ", ip - 1,
                   " runs past the ", n > in_end - ip ? "compressed data" : "uncompressed size");
      std::memcpy(out.data() + op, in + ip, n);
      ip += n;
      op += n;
      continue;
    }
    size_t length = ctrl >> 5;
    if (length == 7) {
      STRATA_CHECK(ip < in_end, where, ": LZF data ends inside a back-reference");
      length += in[ip++];
    }
    STRATA_CHECK(ip < in_end, where, ": LZF data ends inside a back-reference");
    const size_t distance = ((ctrl & 0x1f) << 8) + in[ip++] + 1;
    length += 2;
    STRATA_CHECK(distance <= op, where, ": LZF back-reference at offset ", ip - 2, " reaches ", distance,
                 " bytes back, but only ", op, " bytes are out");
    STRATA_CHECK(length <= size - op, where, ": LZF back-reference at offset ", ip - 2,
                 " runs past the uncompressed size ", size);
    // Byte by byte: a reference may overlap the bytes it writes (a repeated pattern).
    for (size_t k = 0; k < length; ++k, ++op) out[op] = out[op - distance];
  }
  STRATA_CHECK(op == size, where, ": LZF data decompresses to ", op, " bytes; the header says ", size);
  return out;
}

std::string lzf_compress(std::string_view bytes) {
  constexpr size_t kMaxLiteral = 32, kMaxDistance = 8192, kMaxLength = 264;
  const auto* in = reinterpret_cast<const unsigned char*>(bytes.data());
  const size_t n = bytes.size();
  std::vector<size_t> table(size_t{1} << 14, SIZE_MAX);  // last position of each 3-byte hash
  std::string out;
  out.reserve(n + n / kMaxLiteral + 1);
  size_t literal_at = out.size(), literals = 0;  // the open literal run's control byte and length
  out.push_back(0);
  auto close_literals = [&] {
    if (literals == 0) out.pop_back();  // the run opened for nothing
    else out[literal_at] = static_cast<char>(literals - 1);
  };
  auto open_literals = [&] {
    literal_at = out.size();
    out.push_back(0);
    literals = 0;
  };
  size_t i = 0;
  while (i < n) {
    if (i + 2 < n) {
      const uint32_t h = ((in[i] << 16 | in[i + 1] << 8 | in[i + 2]) * 2654435761u) >> 18;
      const size_t ref = table[h];
      table[h] = i;
      if (ref != SIZE_MAX && i - ref <= kMaxDistance && std::memcmp(in + ref, in + i, 3) == 0) {
        const size_t limit = std::min(kMaxLength, n - i);
        size_t length = 3;
        while (length < limit && in[ref + length] == in[i + length]) ++length;
        close_literals();
        const size_t distance = i - ref - 1, code = length - 2;
        out.push_back(static_cast<char>((std::min<size_t>(code, 7) << 5) | (distance >> 8)));
        if (code >= 7) out.push_back(static_cast<char>(code - 7));
        out.push_back(static_cast<char>(distance & 0xff));
        i += length;
        open_literals();
        continue;
      }
    }
    out.push_back(static_cast<char>(in[i++]));
    if (++literals == kMaxLiteral) {
      close_literals();
      open_literals();
    }
  }
  close_literals();
  return out;
}

}  // namespace strata::points::detail
