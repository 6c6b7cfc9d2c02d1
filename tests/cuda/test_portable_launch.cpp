// for_each_index in the emulated build (src/kernels/cuda/portable.hpp): every index once, in an
// order other than 0, 1, 2, ..., as a GPU would not run them in order either.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <vector>

#include "kernels/cuda/portable.hpp"

namespace strata::kernels::cuda {
namespace {

std::vector<int64_t> visit_order(int64_t n) {
  std::vector<int64_t> order;
  for_each_index(n, "visit", [&](int64_t i) { order.push_back(i); });
  return order;
}

TEST(EmulatedLaunch, VisitsEveryIndexOnceOutOfOrder) {
  EXPECT_TRUE(visit_order(0).empty());
  EXPECT_EQ(visit_order(1), std::vector<int64_t>{0});
  for (int64_t n : {2, 3, 4, 7, 64, 1000, 4096, 65537}) {
    std::vector<int64_t> order = visit_order(n);
    std::vector<int64_t> in_order(static_cast<size_t>(n));
    std::iota(in_order.begin(), in_order.end(), 0);
    EXPECT_NE(order, in_order) << n;
    std::sort(order.begin(), order.end());
    EXPECT_EQ(order, in_order) << n;
  }
}

// A kernel that reads what another thread of its launch writes depends on their order: the
// emulated launch gives it a wrong answer, as a GPU would.
TEST(EmulatedLaunch, AKernelDependingOnThreadOrderGoesWrong) {
  std::vector<int64_t> running(100, 1);
  int64_t* p = running.data();
  for_each_index(99, "running sum", [=](int64_t i) { p[i + 1] += p[i]; });
  EXPECT_NE(running.back(), 100);  // 100 only if thread i ran before thread i + 1, for every i
}

}  // namespace
}  // namespace strata::kernels::cuda
