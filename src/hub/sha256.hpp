// SHA-256 through OpenSSL's EVP interface, fed in pieces; the hub's content address for blobs.
#pragma once
#include <cstddef>
#include <string>

namespace strata::hub::detail {

class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;
  void update(const void* data, size_t n);
  std::string hex();  // finishes the digest: 64 lowercase hex digits

 private:
  void* ctx_;  // EVP_MD_CTX, kept out of the header
};

// The digest of one piece of memory: 64 lowercase hex digits.
std::string sha256_hex(const void* data, size_t n);

}  // namespace strata::hub::detail
