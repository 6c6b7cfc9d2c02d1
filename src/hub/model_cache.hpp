// An LRU cache of decoded weights keyed by blob SHA-256, bounded in bytes. Keyed by content,
// not by name and version, so it can never serve weights another process has replaced.
#pragma once
#include <list>
#include <memory>
#include <string>
#include <unordered_map>

#include "strata/io/safetensors.hpp"

namespace strata::hub::detail {

class ModelCache {
 public:
  using Weights = std::shared_ptr<const io::NamedTensors>;
  explicit ModelCache(size_t capacity_bytes) : capacity_(capacity_bytes) {}

  Weights get(const std::string& sha256);  // null when absent; marks it most recently used
  // Keeps `weights` (of `bytes` bytes) unless larger than the whole cache; evicts the least
  // recently used entries to make room.
  void put(const std::string& sha256, Weights weights, size_t bytes);
  void erase(const std::string& sha256);
  size_t bytes() const { return bytes_; }
  size_t capacity() const { return capacity_; }

 private:
  struct Entry {
    std::string sha256;
    Weights weights;
    size_t bytes;
  };
  size_t capacity_;
  size_t bytes_ = 0;
  std::list<Entry> lru_;  // most recently used first
  std::unordered_map<std::string, std::list<Entry>::iterator> index_;
};

}  // namespace strata::hub::detail
