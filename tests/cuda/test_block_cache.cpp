// The caching device allocator's free list (src/kernels/cuda/block_cache.hpp), on host memory.
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <vector>

#include "kernels/cuda/block_cache.hpp"

namespace strata::kernels::cuda {
namespace {

struct CountingSystem {
  int allocations = 0, frees = 0;
  size_t limit = SIZE_MAX;  // bytes the "device" has in all
  size_t in_use = 0;
  std::map<void*, size_t> sizes;
  BlockCache cache{[this](size_t n) -> void* {
                     if (in_use + n > limit) return nullptr;
                     ++allocations, in_use += n;
                     void* p = std::malloc(n);
                     sizes[p] = n;
                     return p;
                   },
                   [this](void* p) {
                     ++frees, in_use -= sizes[p];
                     sizes.erase(p);
                     std::free(p);
                   }};
};

TEST(BlockCache, RoundsSizesUp) {
  EXPECT_EQ(BlockCache::rounded_size(1), 512u);
  EXPECT_EQ(BlockCache::rounded_size(512), 512u);
  EXPECT_EQ(BlockCache::rounded_size(513), 1024u);
  EXPECT_EQ(BlockCache::rounded_size((1u << 20) - 1), 1u << 20);
  EXPECT_EQ(BlockCache::rounded_size((1u << 20) + 1), 2u << 20);
  EXPECT_EQ(BlockCache::rounded_size((2u << 20) + 1), 4u << 20);
}

TEST(BlockCache, ReusesAFreedBlockOfTheSameRoundedSize) {
  CountingSystem system;
  void* a = system.cache.allocate(1000);
  system.cache.deallocate(a, 1000);
  EXPECT_EQ(system.cache.stats().cached_bytes, 1024u);
  void* b = system.cache.allocate(900);  // rounds to the same 1024
  EXPECT_EQ(b, a);
  EXPECT_EQ(system.allocations, 1);
  EXPECT_EQ(system.cache.stats().cache_hits, 1u);
  EXPECT_EQ(system.cache.stats().cached_bytes, 0u);
  void* c = system.cache.allocate(2000);  // another size: a new block
  EXPECT_NE(c, a);
  EXPECT_EQ(system.allocations, 2);
  system.cache.deallocate(b, 900);
  system.cache.deallocate(c, 2000);
}

TEST(BlockCache, ReturnsCachedBlocksWhenTheSystemRunsOut) {
  CountingSystem system;
  system.limit = 4096;
  void* a = system.cache.allocate(3000);  // 3072 bytes
  system.cache.deallocate(a, 3000);
  // 2048 more do not fit beside the cached 3072: the cache is emptied and the request retried.
  void* b = system.cache.allocate(2048);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(system.frees, 1);
  EXPECT_EQ(system.cache.stats().cached_bytes, 0u);
  EXPECT_EQ(system.cache.allocate(4096), nullptr);  // truly out of memory
  system.cache.deallocate(b, 2048);
}

TEST(BlockCache, EmptyAndDestructionReturnEveryBlock) {
  CountingSystem system;
  std::vector<std::pair<void*, size_t>> blocks;
  for (size_t n = 700; n <= 3500; n += 700) blocks.emplace_back(system.cache.allocate(n), n);
  for (auto [p, n] : blocks) system.cache.deallocate(p, n);
  system.cache.empty();
  EXPECT_EQ(system.frees, 5);
  EXPECT_EQ(system.in_use, 0u);
  EXPECT_EQ(system.cache.allocate(0), nullptr);
}

}  // namespace
}  // namespace strata::kernels::cuda
