// V-trace: values worked out by hand (clipped and unclipped ratios, an episode end cutting the
// trace), and on-policy it must equal GAE's advantages (an independent implementation).
#include <gtest/gtest.h>

#include <cmath>

#include "support/expect_error.hpp"
#include "strata/core/factory.hpp"
#include "strata/ops/elementwise.hpp"
#include "strata/rl/returns.hpp"

namespace strata::rl {
namespace {

using strata::testing::expect_error;

Tensor vtrace_test_col(std::vector<float> v) {
  const int64_t n = static_cast<int64_t>(v.size());
  return from_vector(v, {n, 1});
}

TEST(VTrace, HandWorkedRolloutWithClippedAndUnclippedRatios) {
  // T = 2, N = 1, gamma 0.5; ratios 2 then 0.5; rewards 1, 2; values 0.5, 1; next values 1, 3.
  const Tensor log_ratios = vtrace_test_col({std::log(2.0f), std::log(0.5f)});
  const Tensor r = vtrace_test_col({1, 2}), v = vtrace_test_col({0.5, 1}), nv = vtrace_test_col({1, 3});
  const Tensor none = vtrace_test_col({0, 0});
  // rho_bar = c_bar = 1. t = 1: rho = c = 0.5, delta = 0.5 (2 + 0.5 * 3 - 1) = 1.25, vs = 2.25,
  // pg = 1.25. t = 0: rho = c = 1, delta = 1 + 0.5 - 0.5 = 1, vs - v = 1 + 0.5 * 1.25 = 1.625,
  // vs = 2.125, pg = 1 + 0.5 (1 + 1.25) - 0.5 = 1.625.
  VTraceTargets t = vtrace(log_ratios, r, v, nv, none, none, 0.5);
  EXPECT_EQ(t.vs.to_vector<float>(), (std::vector<float>{2.125f, 2.25f}));
  EXPECT_EQ(t.pg_advantages.to_vector<float>(), (std::vector<float>{1.625f, 1.25f}));
  // Unclipped (rho_bar = c_bar = 100): t = 0 has rho = c = 2: delta = 2, vs - v = 2 + 0.5 * 2 * 1.25
  // = 3.25, pg = 2 (1 + 0.5 * 2.25 - 0.5) = 3.25.
  t = vtrace(log_ratios, r, v, nv, none, none, 0.5, 1.0, 100, 100);
  EXPECT_EQ(t.vs.to_vector<float>(), (std::vector<float>{3.75f, 2.25f}));
  EXPECT_EQ(t.pg_advantages.to_vector<float>(), (std::vector<float>{3.25f, 1.25f}));
  // The episode terminates at t = 0: no bootstrap and no trace past it; rho = 1:
  // vs = 0.5 + (1 - 0.5) = 1, pg = 0.5.
  const Tensor ended = vtrace_test_col({1, 0});
  t = vtrace(log_ratios, r, v, nv, ended, ended, 0.5);
  EXPECT_EQ(t.vs.to_vector<float>()[0], 1.0f);
  EXPECT_EQ(t.pg_advantages.to_vector<float>()[0], 0.5f);
}

TEST(VTrace, OnPolicyIsGae) {
  manual_seed(5);
  const int64_t T = 7, N = 3;
  const Tensor r = randn({T, N}), v = randn({T, N}), nv = randn({T, N});
  const Tensor done = cast(rand({T, N}) < 0.3, kFloat32);
  const Tensor term = done * cast(rand({T, N}) < 0.5, kFloat32);  // some ends are truncations
  const Tensor zero = zeros({T, N});
  for (double lambda : {0.0, 0.9, 1.0}) {
    const Advantages a = gae(r, v, nv, term, done, 0.97, lambda);
    const VTraceTargets t = vtrace(zero, r, v, nv, term, done, 0.97, lambda);
    const auto got = (t.vs - v).to_vector<float>(), want = a.advantages.to_vector<float>();
    for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-5) << "lambda " << lambda << " at " << i;
  }
  // With lambda 1 the policy gradient's advantage is GAE(1)'s too.
  const auto pg = vtrace(zero, r, v, nv, term, done, 0.97).pg_advantages.to_vector<float>();
  const auto want = gae(r, v, nv, term, done, 0.97, 1.0).advantages.to_vector<float>();
  for (size_t i = 0; i < pg.size(); ++i) EXPECT_NEAR(pg[i], want[i], 1e-5) << i;
}

TEST(VTrace, BadInputsAreErrors) {
  const Tensor a = zeros({3, 2});
  expect_error([&] { vtrace(zeros({3, 1}), a, a, a, a, a, 0.9); }, {"vtrace", "log_ratios", "[3, 2]"});
  expect_error([&] { vtrace(a, a, a, a, a, a, 0.9, 1.5); }, {"vtrace", "lambda"});
  expect_error([&] { vtrace(a, a, a, a, a, a, 0.9, 1, 0); }, {"vtrace", "rho_bar"});
  expect_error([&] { vtrace(a, a, a, a, a, a, 1.5); }, {"vtrace", "gamma"});
}

}  // namespace
}  // namespace strata::rl
