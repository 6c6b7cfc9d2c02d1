#include "file_bytes.hpp"

#include <filesystem>
#include <fstream>

#include "strata/core/error.hpp"
#include "strata/core/limits.hpp"

namespace strata::data::detail {

std::vector<unsigned char> read_file_bytes(const std::string& path, const char* what) {
  std::ifstream in(path, std::ios::binary);
  STRATA_CHECK(in.good(), what, ": cannot open ", path);
  // A file read whole is one tensor's worth of memory: bounded like one, before reading where
  // the size is known, and as the bytes come where it is not (a pipe).
  const std::string where = std::string(what) + ": " + path;
  const uint64_t limit = limits().max_tensor_bytes;
  std::vector<unsigned char> bytes;
  std::error_code no_size;
  const uintmax_t size = std::filesystem::file_size(path, no_size);
  if (!no_size) {
    check_limit(where, "file bytes", size, "max_tensor_bytes", limit);
    bytes.reserve(size);
  }
  char chunk[1 << 16];
  while (in.read(chunk, sizeof chunk) || in.gcount() > 0) {
    bytes.insert(bytes.end(), chunk, chunk + in.gcount());
    check_limit(where, "file bytes", bytes.size(), "max_tensor_bytes", limit);
  }
  STRATA_CHECK(!in.bad(), what, ": error while reading ", path);
  return bytes;
}

}  // namespace strata::data::detail
