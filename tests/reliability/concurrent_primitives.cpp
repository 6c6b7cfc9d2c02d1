// oneDNN as Debian builds it gives the primitives one scratchpad per creating thread unless each
// is run with one of its own (kernels/cpu/dnnl_context.hpp), and Strata caches primitives for
// every thread: a primitive made on one thread and run on another while its maker ran a
// different one silently got wrong numbers (two served model replicas answered with garbage
// about once in a hundred runs of 320 requests). Here two threads run the same matrix
// products, convolutions and poolings in different orders and check every result against the
// same op in float64, which runs on Strata's own loops. Without the fix this fails 2 runs in 3.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "strata/autograd/grad_mode.hpp"
#include "strata/core/factory.hpp"
#include "strata/ops/conv.hpp"
#include "strata/ops/elementwise.hpp"
#include "strata/ops/linalg.hpp"
#include "strata/ops/pool.hpp"

namespace strata {
namespace {

// Every thread runs the same ops in its own order: a primitive made (and cached) on one thread
// runs on another while its maker runs a different one; that is when the shared scratchpad broke.
struct Work {
  Tensor a, b, x, w;
  Tensor want_mm, want_conv, want_pool;
};

std::vector<Work> make_work() {
  NoGradGuard no_grad;
  const ConvOptions same{.padding = Padding::same()};
  std::vector<Work> all;
  for (int64_t i = 0; i < 8; ++i) {
    Work k{randn({2 + i, 64}), randn({64, 24 + i}), randn({2, 6 + i, 6 + i, 4}), randn({3, 3, 4, 8})};
    k.want_mm = matmul(k.a.to(kFloat64), k.b.to(kFloat64));
    k.want_conv = conv2d(k.x.to(kFloat64), k.w.to(kFloat64), Tensor(), same);
    k.want_pool = max_pool2d(k.want_conv, {3}, {.stride = {2}});
    all.push_back(std::move(k));
  }
  return all;
}

// How many results differed from float64 on the thread starting at `first`.
int wrong_results(const std::vector<Work>& all, size_t first, int rounds) {
  NoGradGuard no_grad;
  const ConvOptions same{.padding = Padding::same()};
  int wrong = 0;
  for (int r = 0; r < rounds; ++r) {
    const Work& k = all[(first + static_cast<size_t>(r)) % all.size()];
    const Tensor conv = conv2d(k.x, k.w, Tensor(), same);
    wrong += !allclose(matmul(k.a, k.b).to(kFloat64), k.want_mm, 1e-4, 1e-4);
    wrong += !allclose(conv.to(kFloat64), k.want_conv, 1e-4, 1e-4);
    wrong += !allclose(max_pool2d(conv, {3}, {.stride = {2}}).to(kFloat64), k.want_pool, 1e-4, 1e-4);
  }
  return wrong;
}

TEST(ConcurrentPrimitives, PrimitivesMadeOnOneThreadRunRightOnAnother) {
  const std::vector<Work> all = make_work();
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (size_t t = 0; t < 2; ++t) threads.emplace_back([&, t] { wrong += wrong_results(all, 4 * t, 2000); });
  for (auto& th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0);
}

}  // namespace
}  // namespace strata
