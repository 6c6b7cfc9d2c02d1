// Collectives against values each rank computes on its own: rank r's tensor is a known
// function of r, so the sum, mean, gather and broadcast results are closed forms.
#include <gtest/gtest.h>

#include "strata/dist/collectives.hpp"
#include "strata/dist/world.hpp"
#include "strata/strata.hpp"

namespace strata {
namespace {

// Rank r's values: r * 10 + i + 0.5.
Tensor rank_values(int rank, int64_t n, DType dtype) {
  std::vector<double> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = rank * 10.0 + i + 0.5;
  return from_vector(v).to(dtype);
}

TEST(DistCollectives, WorldIsConsistent) {
  const dist::World& w = dist::world();
  EXPECT_GE(w.rank, 0);
  EXPECT_LT(w.rank, w.size);
  EXPECT_LT(w.local_rank, w.local_size);
  EXPECT_EQ(w.local_size, w.size);  // one host in these tests
  Tensor ranks = dist::all_gather(from_vector(std::vector<double>{double(w.rank), double(w.local_rank)}));
  for (int r = 0; r < w.size; ++r) EXPECT_EQ(ranks.select(0, r).to_vector<double>()[0], r);
}

TEST(DistCollectives, AllReduceSumAndMeanInFloat32AndFloat64) {
  const dist::World& w = dist::world();
  for (DType dtype : {kFloat32, kFloat64}) {
    Tensor sum_t = rank_values(w.rank, 1000, dtype), mean_t = rank_values(w.rank, 1000, dtype);
    dist::all_reduce(sum_t);
    dist::all_reduce(mean_t, dist::ReduceOp::avg);
    auto s = sum_t.to_vector<double>(), m = mean_t.to_vector<double>();
    const double rank_sum = w.size * (w.size - 1) / 2.0;
    for (int64_t i = 0; i < 1000; ++i) {
      const double expect = 10.0 * rank_sum + w.size * (i + 0.5);
      EXPECT_NEAR(s[i], expect, 1e-6 * expect);
      EXPECT_NEAR(m[i], expect / w.size, 1e-6 * expect);
    }
  }
}

TEST(DistCollectives, BroadcastFromEveryRoot) {
  const dist::World& w = dist::world();
  for (int root = 0; root < w.size; ++root) {
    Tensor t = rank_values(w.rank, 7, kFloat32).reshape({7, 1});
    dist::broadcast(t, root);
    EXPECT_EQ(t.to_vector<double>(), rank_values(root, 7, kFloat32).to_vector<double>());
  }
}

TEST(DistCollectives, AllGatherStacksInRankOrderEvenFromAView) {
  const dist::World& w = dist::world();
  Tensor base = rank_values(w.rank, 6, kFloat64).reshape({2, 3});
  Tensor g = dist::all_gather(base.transpose(0, 1));  // not contiguous: gathered as its values
  ASSERT_EQ(g.shape(), Shape({w.size, 3, 2}));
  for (int r = 0; r < w.size; ++r)
    EXPECT_EQ(g.select(0, r).contiguous().to_vector<double>(),
              rank_values(r, 6, kFloat64).reshape({2, 3}).transpose(0, 1).contiguous().to_vector<double>());
}

TEST(DistCollectives, MismatchedShapesAreAnErrorOnEveryRank) {
  const dist::World& w = dist::world();
  Tensor t = zeros({w.rank == 0 ? 3 : 4});
  try {
    dist::all_reduce(t);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("different tensors"), std::string::npos) << e.what();
  }
  dist::barrier();
}

TEST(DistCollectives, BadTensorsAreRefusedBeforeAnyCommunication) {
  Tensor ints = zeros({3}, kInt64), view = zeros({4, 4}).transpose(0, 1);
  EXPECT_THROW(dist::all_reduce(ints), Error);
  EXPECT_THROW(dist::all_reduce(view), Error);
  Tensor ok = zeros({2});
  EXPECT_THROW(dist::broadcast(ok, dist::world().size), Error);
  EXPECT_THROW(dist::broadcast(ok, -1), Error);
}

}  // namespace
}  // namespace strata
