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

// A static model with a BatchNorm1d, and a nested model with a BatchNorm, converted: the copy has
// SyncBatchNorm layers of the same names and weights; in eval it computes what the original does,
// in training its rank's slice of what the original computes on the whole batch.
TEST(DistSyncBatchNorm, ConvertsAStaticModelsBatchNormLayers) {
  const int rank = dist::world().rank, size = dist::world().size;
  auto inner_in = nn::Input({-1, 8}, "features");
  nn::Model inner(inner_in, nn::BatchNorm(0.7, 1e-3, nn::relu, "inner_bn")(inner_in), "inner");
  auto x_in = nn::Input({-1, 6}, "x");
  auto h = nn::BatchNorm1d(0.8, 1e-5, {}, "bn")(nn::Dense(8, {}, "a")(x_in));
  nn::Model model(x_in, nn::Dense(3, {}, "out")(inner(h)), "net");
  Generator gen(5);
  for (auto& [name, w] : model.named_weights()) copy_(w, rand(w.shape(), kFloat32, &gen) + 0.5);  // not the initial values
  const std::string before = model.to_json();

  auto converted = dist::convert_sync_batch_norm(model);
  EXPECT_EQ(model.to_json(), before);
  const std::string architecture = converted->to_json();
  size_t sync_layers = 0;
  for (size_t at = architecture.find("\"sync_batchnorm\""); at != std::string::npos;
       at = architecture.find("\"sync_batchnorm\"", at + 1))
    ++sync_layers;
  EXPECT_EQ(sync_layers, 2u) << architecture;
  EXPECT_EQ(architecture.find("\"batchnorm"), std::string::npos) << architecture;
  const auto want = model.named_weights(), got = converted->named_weights();
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].first, want[i].first);
    EXPECT_EQ(got[i].second.to_vector<double>(), want[i].second.to_vector<double>()) << got[i].first;
  }

  const Tensor x_all = randn({12, 6}, kFloat32, &gen) * 2.0 + 1.0;
  const int64_t begin = 12 * rank / size, rows = 12 * (rank + 1) / size - begin;
  model.eval();
  converted->eval();
  expect_near(converted->run({x_all})[0], model.run({x_all})[0], "eval");
  model.train();
  converted->train();
  expect_near(converted->run({x_all.narrow(0, begin, rows)})[0], model.run({x_all})[0].narrow(0, begin, rows),
              "training");
  const auto moved = converted->named_weights(), reference = model.named_weights();
  for (size_t i = 0; i < moved.size(); ++i) expect_near(moved[i].second, reference[i].second, moved[i].first.c_str());
}

}  // namespace
}  // namespace strata
