// A blob's content address: the SHA-256 of its safetensors bytes, and their size.
#pragma once
#include <cstdint>
#include <string>

namespace strata::hub::detail {

struct BlobId {
  std::string sha256;
  int64_t size = 0;
};

}  // namespace strata::hub::detail
