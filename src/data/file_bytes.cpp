#include "file_bytes.hpp"

#include <fstream>
#include <iterator>

#include "strata/core/error.hpp"

namespace strata::data::detail {

std::vector<unsigned char> read_file_bytes(const std::string& path, const char* what) {
  std::ifstream in(path, std::ios::binary);
  STRATA_CHECK(in.good(), what, ": cannot open ", path);
  std::vector<unsigned char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  STRATA_CHECK(!in.bad(), what, ": error while reading ", path);
  return bytes;
}

}  // namespace strata::data::detail
