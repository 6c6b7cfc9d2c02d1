#include "strata/rl/returns.hpp"

#include "strata/core/error.hpp"
#include "strata/core/factory.hpp"

namespace strata::rl {
namespace {

// The [T, N] float32 inputs as row-major vectors, checked to share rewards' shape.
std::vector<float> rollout(const Tensor& t, const Tensor& rewards, const char* what, const char* fn) {
  STRATA_CHECK(t.defined() && t.shape() == rewards.shape(), fn, ": ", what, " must have rewards' shape ",
               rewards.shape().str(), ", got ", t.defined() ? t.shape().str() : "an undefined tensor");
  return t.contiguous().to_vector<float>();
}

void check_rewards(const Tensor& rewards, double gamma, const char* fn) {
  STRATA_CHECK(rewards.defined() && rewards.dim() == 2, fn, ": rewards must be [T, N], got ",
               rewards.defined() ? rewards.shape().str() : "an undefined tensor");
  STRATA_CHECK(gamma >= 0 && gamma <= 1, fn, ": gamma must be in [0, 1], got ", std::to_string(gamma));
}

}  // namespace

Tensor discounted_returns(const Tensor& rewards, const Tensor& dones, double gamma, const Tensor& bootstrap) {
  check_rewards(rewards, gamma, "discounted_returns");
  const int64_t T = rewards.size(0), N = rewards.size(1);
  const auto r = rewards.contiguous().to_vector<float>();
  const auto d = rollout(dones, rewards, "dones", "discounted_returns");
  std::vector<double> next(N, 0.0);
  if (bootstrap.defined()) {
    STRATA_CHECK(bootstrap.numel() == N, "discounted_returns: bootstrap must have ", N, " values, got ", bootstrap.numel());
    const auto b = bootstrap.contiguous().to_vector<float>();
    next.assign(b.begin(), b.end());
  }
  std::vector<float> g(T * N);
  for (int64_t t = T - 1; t >= 0; --t)
    for (int64_t i = 0; i < N; ++i) {
      next[i] = r[t * N + i] + gamma * (1 - d[t * N + i]) * next[i];
      g[t * N + i] = static_cast<float>(next[i]);
    }
  return from_vector(g, {T, N});
}

Advantages gae(const Tensor& rewards, const Tensor& values, const Tensor& next_values, const Tensor& terminated,
               const Tensor& dones, double gamma, double lambda) {
  check_rewards(rewards, gamma, "gae");
  STRATA_CHECK(lambda >= 0 && lambda <= 1, "gae: lambda must be in [0, 1], got ", std::to_string(lambda));
  const int64_t T = rewards.size(0), N = rewards.size(1);
  const auto r = rewards.contiguous().to_vector<float>();
  const auto v = rollout(values, rewards, "values", "gae");
  const auto nv = rollout(next_values, rewards, "next_values", "gae");
  const auto term = rollout(terminated, rewards, "terminated", "gae");
  const auto done = rollout(dones, rewards, "dones", "gae");
  std::vector<float> adv(T * N), ret(T * N);
  std::vector<double> next(N, 0.0);
  for (int64_t t = T - 1; t >= 0; --t)
    for (int64_t i = 0; i < N; ++i) {
      const int64_t k = t * N + i;
      const double delta = r[k] + gamma * (1 - term[k]) * nv[k] - v[k];
      next[i] = delta + gamma * lambda * (1 - done[k]) * next[i];
      adv[k] = static_cast<float>(next[i]);
      ret[k] = static_cast<float>(next[i] + v[k]);
    }
  return {from_vector(adv, {T, N}), from_vector(ret, {T, N})};
}

}  // namespace strata::rl
