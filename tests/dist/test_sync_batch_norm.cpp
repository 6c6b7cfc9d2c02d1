// SyncBatchNorm on each rank's slice of a batch against nn::BatchNorm on the whole batch: the
// same outputs for the slice, moving statistics, and gradients (x's rows, and gamma's and beta's
// summed over the ranks), which needs the all-reduce's backward.
#include <gtest/gtest.h>

#include "strata/dist/dist.hpp"
#include "strata/strata.hpp"

namespace strata {
namespace {

void expect_near(const Tensor& got, const Tensor& want, const char* what) {
  auto g = got.contiguous().to_vector<double>(), w = want.contiguous().to_vector<double>();
  ASSERT_EQ(g.size(), w.size()) << what;
  for (size_t i = 0; i < g.size(); ++i) EXPECT_NEAR(g[i], w[i], 1e-4) << what << "[" << i << "]";
}

TEST(DistSyncBatchNorm, MatchesBatchNormOnTheGlobalBatch) {
  const int rank = dist::world().rank, size = dist::world().size;
  Generator gen(3);
  const Tensor x_all = randn({12, 2, 4}, kFloat32, &gen) * 2.0 + 1.0, coeffs = randn({12, 2, 4}, kFloat32, &gen);
  const int64_t begin = 12 * rank / size, rows = 12 * (rank + 1) / size - begin;

  nn::BatchNorm reference(0.8, 1e-5);
  Tensor x_ref = x_all.clone().requires_grad_();
  Tensor y_ref = reference(x_ref);
  sum(y_ref * coeffs).backward();

  dist::SyncBatchNorm bn(0.8, 1e-5);
  Tensor x = x_all.narrow(0, begin, rows).clone().requires_grad_();
  Tensor y = bn(x);
  sum(y * coeffs.narrow(0, begin, rows)).backward();

  expect_near(y, y_ref.narrow(0, begin, rows), "y");
  expect_near(bn.moving_mean, reference.moving_mean, "moving_mean");
  expect_near(bn.moving_var, reference.moving_var, "moving_var");
  expect_near(x.grad(), x_ref.grad().narrow(0, begin, rows), "x.grad");
  Tensor gamma_grad = bn.gamma.grad().clone(), beta_grad = bn.beta.grad().clone();
  dist::all_reduce(gamma_grad);
  dist::all_reduce(beta_grad);
  expect_near(gamma_grad, reference.gamma.grad(), "gamma.grad");
  expect_near(beta_grad, reference.beta.grad(), "beta.grad");

  bn.eval();  // the moving statistics, as BatchNorm in eval
  reference.eval();
  expect_near(bn(x_all), reference(x_all), "eval");
}

}  // namespace
}  // namespace strata
