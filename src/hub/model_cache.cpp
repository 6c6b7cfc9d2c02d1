#include "model_cache.hpp"

namespace strata::hub::detail {

ModelCache::Weights ModelCache::get(const std::string& sha256) {
  auto it = index_.find(sha256);
  if (it == index_.end()) return nullptr;
  lru_.splice(lru_.begin(), lru_, it->second);
  return it->second->weights;
}

void ModelCache::put(const std::string& sha256, Weights weights, size_t bytes) {
  if (bytes > capacity_) return;
  erase(sha256);
  while (bytes_ + bytes > capacity_ && !lru_.empty()) erase(lru_.back().sha256);
  lru_.push_front({sha256, std::move(weights), bytes});
  index_[sha256] = lru_.begin();
  bytes_ += bytes;
}

void ModelCache::erase(const std::string& sha256) {
  auto it = index_.find(sha256);
  if (it == index_.end()) return;
  bytes_ -= it->second->bytes;
  lru_.erase(it->second);
  index_.erase(it);
}

}  // namespace strata::hub::detail
