// Returns of rollouts laid out [T, N] (T steps of N environment copies), episode ends included:
// discounted returns (REINFORCE) and generalised advantage estimation (A2C, PPO).
#pragma once
#include "strata/core/tensor.hpp"

namespace strata::rl {

// G_t = r_t + gamma (1 - done_t) G_{t+1}, with G_T = bootstrap ([N]; zeros when the rollout ends
// with whole episodes). rewards, dones: [T, N] float32 (dones 1 where an episode ended at t).
Tensor discounted_returns(const Tensor& rewards, const Tensor& dones, double gamma, const Tensor& bootstrap = Tensor());

struct Advantages {
  Tensor advantages;  // [T, N]
  Tensor returns;     // advantages + values: the critic's targets
};

// GAE(gamma, lambda) (Schulman et al. 2016). values[t] = V(s_t); next_values[t] = V of the state
// after step t (for a truncated step, V of its final observation, so a time limit still
// bootstraps); terminated zeroes the bootstrap, terminated or truncated cuts the trace:
//   delta_t = r_t + gamma (1 - terminated_t) next_values_t - values_t
//   A_t = delta_t + gamma lambda (1 - done_t) A_{t+1}
Advantages gae(const Tensor& rewards, const Tensor& values, const Tensor& next_values, const Tensor& terminated,
               const Tensor& dones, double gamma, double lambda);

}  // namespace strata::rl
