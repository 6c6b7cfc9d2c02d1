// flat_indexer (src/kernels/cuda/indexer.hpp), what the element-wise kernels read through: for
// contiguous, transposed, sliced, broadcast and size-1 layouts, every position maps to the offset
// the plain per-axis Indexer gives, with axes merged and the fast paths' flags set where they hold.
#include <gtest/gtest.h>

#include "kernels/cuda/indexer.hpp"
#include "strata/strata.hpp"

namespace strata::kernels::cuda {
namespace {

void expect_same_offsets(const Tensor& t, const Shape& out, const char* what) {
  const Indexer flat = flat_indexer(t, out), plain = broadcast_indexer(t, out);
  int64_t n = 1;
  for (int d = 0; d < out.size(); ++d) n *= out[d];
  for (int64_t i = 0; i < n; ++i) ASSERT_EQ(flat(i), plain(i)) << what << ", position " << i;
}

TEST(FlatIndexer, MapsEveryPositionAsThePerAxisIndexerDoes) {
  const Tensor x = zeros({4, 5, 6});
  expect_same_offsets(x, x.shape(), "contiguous");
  expect_same_offsets(x.permute({2, 0, 1}), {6, 4, 5}, "permuted");
  expect_same_offsets(x.narrow(2, 1, 3), {4, 5, 3}, "sliced");
  expect_same_offsets(x.narrow(1, 0, 1), {4, 1, 6}, "a size-1 axis");
  expect_same_offsets(zeros({6}), {4, 5, 6}, "a bias broadcast over rows");
  expect_same_offsets(zeros({4, 1, 1}), {4, 5, 6}, "broadcast inner axes");
  expect_same_offsets(scalar_tensor(1.0), {3, 2}, "a scalar");
}

TEST(FlatIndexer, MergesAxesAndSetsTheFastPaths) {
  const Tensor x = zeros({4, 5, 6});
  Indexer ix = flat_indexer(x, x.shape());
  EXPECT_TRUE(ix.identity);
  EXPECT_EQ(ix.dims, 1);
  ix = flat_indexer(x.narrow(2, 1, 3), {4, 5, 3});  // rows of 3 every 6: one merged axis of rows
  EXPECT_FALSE(ix.identity);
  EXPECT_EQ(ix.dims, 2);
  EXPECT_TRUE(ix.narrow);
  ix = flat_indexer(zeros({6}), {4, 5, 6});  // [0, 0, 1] strides: the two row axes merge
  EXPECT_EQ(ix.dims, 2);
  EXPECT_EQ(ix.sizes[0], 20);
  const Tensor huge = zeros({1}).expand({int64_t{1} << 33});  // more positions than 32 bits hold
  EXPECT_FALSE(flat_indexer(huge, huge.shape()).narrow);
}

}  // namespace
}  // namespace strata::kernels::cuda
