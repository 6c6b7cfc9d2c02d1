#include "strata/rl/vector_env.hpp"

#include <algorithm>
#include <cstring>
#include <exception>

#include "strata/core/error.hpp"
#include "strata/rl/make_env.hpp"
#include "strata/core/factory.hpp"

namespace strata::rl {

VectorEnv::VectorEnv(const std::string& id, int64_t copies, int threads) : threads_(std::max(threads, 1)) {
  STRATA_CHECK(copies >= 1, "VectorEnv(", id, "): expected at least one copy, got ", copies);
  for (int64_t i = 0; i < copies; ++i) envs_.push_back(make_env(id));
  returns_.assign(copies, 0.0);
}

Tensor VectorEnv::reset(uint64_t seed) {
  const int64_t n = size(), d = observation_size();
  Tensor obs = Tensor::empty({n, d});
  for (int64_t i = 0; i < n; ++i) {
    const auto o = envs_[i]->reset(seed + i);
    std::memcpy(obs.data<float>() + i * d, o.data(), d * sizeof(float));
  }
  std::fill(returns_.begin(), returns_.end(), 0.0);
  return obs;
}

VectorStep VectorEnv::step(const Tensor& actions) {
  const int64_t n = size(), d = observation_size(), a = action_space().size();
  const bool flat = action_space().discrete() && actions.dim() == 1;
  STRATA_CHECK(actions.dim() >= 1 && actions.size(0) == n && (flat || (actions.dim() == 2 && actions.size(1) == a)),
               envs_[0]->name(), ": VectorEnv::step expects actions of shape [", n, "]",
               action_space().discrete() ? "" : " of size " + std::to_string(a), " or [", n, ", ", a, "], got ",
               actions.shape().str());
  const std::vector<float> act = actions.contiguous().to_vector<float>();
  VectorStep out;
  out.observations = Tensor::empty({n, d});
  out.final_observations = zeros({n, d});
  out.rewards.assign(n, 0.f);
  out.terminated.assign(n, 0);
  out.truncated.assign(n, 0);
  std::vector<double> ended(n, 0);  // the ended episode's return, where has_ended
  std::vector<uint8_t> has_ended(n, 0);
  std::vector<int64_t> lengths(n, 0);
  // An exception may not leave an OpenMP region: the first one (a bad action) is rethrown after it.
  std::exception_ptr error;
  // Each copy touches only its own row and its own Env: safe to run in parallel.
#pragma omp parallel for num_threads(threads_) schedule(static) if (threads_ > 1)
  for (int64_t i = 0; i < n; ++i) try {
    Env& env = *envs_[i];
    Step s = env.step(std::span<const float>(act.data() + i * a, a));
    out.rewards[i] = static_cast<float>(s.reward);
    out.terminated[i] = s.terminated;
    out.truncated[i] = s.truncated;
    returns_[i] += s.reward;
    if (s.done()) {
      std::memcpy(out.final_observations.data<float>() + i * d, s.observation.data(), d * sizeof(float));
      has_ended[i] = 1;
      ended[i] = returns_[i];
      lengths[i] = env.elapsed_steps();
      returns_[i] = 0;
      s.observation = env.reset();
    }
    std::memcpy(out.observations.data<float>() + i * d, s.observation.data(), d * sizeof(float));
  } catch (...) {
#pragma omp critical(strata_rl_vector_env)
    if (!error) error = std::current_exception();
  }
  if (error) std::rethrow_exception(error);
  for (int64_t i = 0; i < n; ++i)
    if (has_ended[i]) {
      out.finished_returns.push_back(ended[i]);
      out.finished_lengths.push_back(lengths[i]);
    }
  return out;
}

}  // namespace strata::rl
