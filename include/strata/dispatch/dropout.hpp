// The dropout kernel family: the mask is a pure function of (seed, element index), so forward
// and backward compute the same mask without storing it, on any device and thread count.
#pragma once
#include <cstdint>

#include "strata/dispatch/stub.hpp"

namespace strata::dispatch {

// x * keep_i / (1 - p), keep_i true with probability 1 - p, from a hash of (seed, i) where i
// is the element's row-major position. Applied to the output gradient it is the backward.
extern Stub<Tensor(const Tensor& x, double p, uint64_t seed)> dropout_apply;

// The mask every backend draws, so that a seed drops the same elements on every device: element i
// is kept when dropout_hash(i, seed) >= dropout_threshold(p). constexpr, so that CUDA device code
// may call them (nvcc's relaxed constexpr) and vectorising CPU loops inline them.
//
// MurmurHash3's finaliser: a bijection on 32 bits with full avalanche, in 32-bit integer operations.
constexpr uint32_t dropout_mix32(uint32_t h) {
  h ^= h >> 16;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  h *= 0xc2b2ae35u;
  h ^= h >> 16;
  return h;
}
// The high word's key, mixed with the seed's high word: constant over runs of 2^32 elements.
constexpr uint32_t dropout_high_key(uint64_t i, uint64_t seed) {
  return static_cast<uint32_t>(i >> 32) * 0x9e3779b9u + static_cast<uint32_t>(seed >> 32);
}
// The hash of i's low word keyed by the seed's low word, then of the high word's key.
constexpr uint32_t dropout_hash(uint64_t i, uint64_t seed) {
  return dropout_mix32(dropout_mix32(static_cast<uint32_t>(i) ^ static_cast<uint32_t>(seed)) +
                       dropout_high_key(i, seed));
}
constexpr uint32_t dropout_threshold(double p) {
  const double cut = p * 4294967296.0;
  return cut >= 4294967295.0 ? 0xffffffffu : static_cast<uint32_t>(cut);
}

}  // namespace strata::dispatch
