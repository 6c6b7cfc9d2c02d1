#include "strata/data/sword_text.hpp"

#include <zlib.h>

#include <cstdint>
#include <cstring>
#include <filesystem>

#include "file_bytes.hpp"
#include "strata/core/error.hpp"
#include "strata/core/limits.hpp"

namespace strata::data {
namespace {

uint32_t le32(const unsigned char* p) {
  return uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24;
}

// One testament: .bzs lists the compressed blocks (offset, size, inflated size; 12 bytes each),
// .bzv the verses (block, offset and size inside the inflated block; 10 bytes each).
void read_testament(const std::string& stem, std::vector<std::string>& verses) {
  const auto blocks = detail::read_file_bytes(stem + ".bzs", "read_sword_ztext");
  const auto index = detail::read_file_bytes(stem + ".bzv", "read_sword_ztext");
  const auto packed = detail::read_file_bytes(stem + ".bzz", "read_sword_ztext");
  STRATA_CHECK(blocks.size() % 12 == 0 && index.size() % 10 == 0, "read_sword_ztext: ", stem,
               ".bzs/.bzv sizes are not whole entries (", blocks.size(), " and ", index.size(), " bytes)");
  std::vector<std::string> inflated(blocks.size() / 12);
  for (size_t b = 0; b < inflated.size(); ++b) {
    const unsigned char* e = blocks.data() + 12 * b;
    const uint64_t offset = le32(e), size = le32(e + 4), full = le32(e + 8);
    STRATA_CHECK(offset + size <= packed.size(), "read_sword_ztext: block ", b, " of ", stem, ".bzz lies at bytes ",
                 offset, "..", offset + size, " of ", packed.size());
    // Deflate expands at most 1032:1, so a larger recorded size is a lie, refused before allocating.
    STRATA_CHECK(full <= size * 1032 + 64, "read_sword_ztext: block ", b, " of ", stem, ".bzz records ", full,
                 " inflated bytes for ", size, " compressed, more than deflate can give");
    check_limit("read_sword_ztext: " + stem + ".bzz", "inflated block bytes", full, "max_tensor_bytes",
                limits().max_tensor_bytes);
    inflated[b].resize(full);
    uLongf got = static_cast<uLongf>(full);
    const int rc = uncompress(reinterpret_cast<Bytef*>(inflated[b].data()), &got, packed.data() + offset,
                              static_cast<uLong>(size));
    STRATA_CHECK(rc == Z_OK && got == full, "read_sword_ztext: block ", b, " of ", stem,
                 ".bzz does not inflate to its recorded ", full, " bytes (zlib error ", rc, ")");
  }
  for (size_t v = 0; v < index.size() / 10; ++v) {
    const unsigned char* e = index.data() + 10 * v;
    const uint64_t block = le32(e), offset = le32(e + 4), size = uint64_t{e[8]} | uint64_t{e[9]} << 8;
    if (size == 0) continue;  // a verse the module lacks
    STRATA_CHECK(block < inflated.size() && offset + size <= inflated[block].size(), "read_sword_ztext: verse ", v,
                 " of ", stem, ".bzv points outside its block (block ", block, ", bytes ", offset, "..",
                 offset + size, ")");
    std::string text = strip_sword_markup(inflated[block].substr(offset, size));
    if (text.find_first_not_of(" \t\r\n") != std::string::npos) verses.push_back(std::move(text));
  }
}

// The element name of the tag in `tag` (between '<' and '>'), without a leading '/'.
std::string tag_name(const std::string& tag) {
  size_t start = tag.size() > 0 && tag[0] == '/' ? 1 : 0, end = start;
  while (end < tag.size() && tag[end] != ' ' && tag[end] != '/' && tag[end] != '\t' && tag[end] != '\n') ++end;
  return tag.substr(start, end - start);
}

}  // namespace

std::string strip_sword_markup(const std::string& in) {
  static const std::pair<const char*, char> kEntities[] = {
      {"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&quot;", '"'}, {"&apos;", '\''}};
  std::string out;
  int skipped = 0;  // depth inside <note> / <title>, whose text is not the verse's
  for (size_t i = 0; i < in.size();) {
    if (in[i] == '<') {
      const size_t close = in.find('>', i);
      if (close == std::string::npos) break;  // a cut tag ends the text
      const std::string tag = in.substr(i + 1, close - i - 1);
      const std::string name = tag_name(tag);
      const bool self_closing = !tag.empty() && tag.back() == '/';
      if ((name == "note" || name == "title") && !self_closing) skipped += tag[0] == '/' ? -1 : 1;
      if (skipped < 0) skipped = 0;
      out += ' ';  // tags separate words (<w>In</w><w>the</w>)
      i = close + 1;
      continue;
    }
    if (skipped > 0) {
      ++i;
      continue;
    }
    bool entity = false;
    if (in[i] == '&')
      for (const auto& [name, c] : kEntities)
        if (in.compare(i, std::strlen(name), name) == 0) {
          out += c;
          i += std::strlen(name);
          entity = true;
          break;
        }
    if (!entity) out += in[i++];
  }
  return out;
}

std::vector<std::string> read_sword_ztext(const std::string& dir) {
  std::vector<std::string> verses;
  bool any = false;
  for (const char* testament : {"ot", "nt"}) {
    const std::string stem = dir + "/" + testament;
    if (!std::filesystem::exists(stem + ".bzs")) continue;
    any = true;
    read_testament(stem, verses);
  }
  STRATA_CHECK(any, "read_sword_ztext: ", dir, " holds no zText module (no ot.bzs or nt.bzs)");
  return verses;
}

}  // namespace strata::data
