// tl.rein.log_weight: mean(log(probs) * weights) against the sum written out, with broadcasting,
// and its gradient against finite differences.
#include <gtest/gtest.h>

#include <cmath>

#include "strata/autograd/gradcheck.hpp"
#include "strata/core/factory.hpp"
#include "strata/rl/log_weight.hpp"
#include "support/expect_error.hpp"

namespace strata {
namespace {

TEST(RlLogWeight, MeanOfWeightedLogProbabilities) {
  const std::vector<double> p = {0.1, 0.7, 0.2, 0.5, 0.25, 0.25}, w = {2.0, -1.0};
  const Tensor probs = from_vector(p, {2, 3}), weights = from_vector(w, {2, 1});
  double want = 0;
  for (size_t i = 0; i < p.size(); ++i) want += std::log(p[i]) * w[i / 3];
  EXPECT_NEAR(rl::log_weight(probs, weights).item<double>(), want / 6, 1e-12);
  auto r = autograd::gradcheck([](const std::vector<Tensor>& v) { return rl::log_weight(v[0], v[1]); },
                               {probs.clone().requires_grad_(), weights.clone().requires_grad_()});
  EXPECT_TRUE(r.ok) << r.message;
  testing::expect_error([] { rl::log_weight(zeros({0}), zeros({0})); }, {"log_weight", "non-empty"});
}

}  // namespace
}  // namespace strata
