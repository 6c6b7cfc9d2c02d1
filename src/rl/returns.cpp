#include "strata/rl/returns.hpp"

#include <algorithm>
#include <cmath>

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

// gae's and vtrace's inputs, checked against their rules and read as row-major vectors.
struct CriticRollout {
  std::vector<float> r, v, nv, term, done;
};
CriticRollout read_critic_rollout(const Tensor& rewards, const Tensor& values, const Tensor& next_values,
                                  const Tensor& terminated, const Tensor& dones, double gamma, double lambda,
                                  const char* fn) {
  check_rewards(rewards, gamma, fn);
  STRATA_CHECK(lambda >= 0 && lambda <= 1, fn, ": lambda must be in [0, 1], got ", std::to_string(lambda));
  return {rewards.contiguous().to_vector<float>(), rollout(values, rewards, "values", fn),
          rollout(next_values, rewards, "next_values", fn), rollout(terminated, rewards, "terminated", fn),
          rollout(dones, rewards, "dones", fn)};
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
  const auto [r, v, nv, term, done] = read_critic_rollout(rewards, values, next_values, terminated, dones, gamma, lambda, "gae");
  const int64_t T = rewards.size(0), N = rewards.size(1);
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

VTraceTargets vtrace(const Tensor& log_ratios, const Tensor& rewards, const Tensor& values, const Tensor& next_values,
                     const Tensor& terminated, const Tensor& dones, double gamma, double lambda, double rho_bar,
                     double c_bar) {
  const auto [r, v, nv, term, done] =
      read_critic_rollout(rewards, values, next_values, terminated, dones, gamma, lambda, "vtrace");
  STRATA_CHECK(rho_bar > 0 && c_bar > 0, "vtrace: rho_bar and c_bar must be > 0, got ", std::to_string(rho_bar), " and ",
               std::to_string(c_bar));
  const int64_t T = rewards.size(0), N = rewards.size(1);
  const auto log_ratio = rollout(log_ratios, rewards, "log_ratios", "vtrace");
  std::vector<float> vs(T * N), pg(T * N);
  std::vector<double> next(N, 0.0);  // vs_{t+1} - values_{t+1}, 0 past the rollout's end
  for (int64_t t = T - 1; t >= 0; --t)
    for (int64_t i = 0; i < N; ++i) {
      const int64_t k = t * N + i;
      const double ratio = std::exp(static_cast<double>(log_ratio[k]));
      const double rho = std::min(rho_bar, ratio), c = lambda * std::min(c_bar, ratio);
      const double keep = 1 - done[k], bootstrap = gamma * (1 - term[k]);
      pg[k] = static_cast<float>(rho * (r[k] + bootstrap * (nv[k] + keep * next[i]) - v[k]));
      next[i] = rho * (r[k] + bootstrap * nv[k] - v[k]) + gamma * keep * c * next[i];
      vs[k] = static_cast<float>(v[k] + next[i]);
    }
  return {from_vector(vs, {T, N}), from_vector(pg, {T, N})};
}

}  // namespace strata::rl
