// Returns of rollouts laid out [T, N] (T steps of N environment copies), episode ends included:
// discounted returns (REINFORCE), generalised advantage estimation (A2C, PPO) and V-trace (IMPALA).
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

struct VTraceTargets {
  Tensor vs;             // [T, N] the critic's targets
  Tensor pg_advantages;  // [T, N] the policy gradient's advantages
};

// V-trace (Espeholt et al. 2018, IMPALA, section 4.1): the off-policy correction of an actor's
// rollout, acted by a behaviour policy mu, for the learner's policy pi. log_ratios[t] =
// log pi(a_t|s_t) - log mu(a_t|s_t); the other inputs as gae's. With rho_t = min(rho_bar, ratio_t)
// and c_t = lambda min(c_bar, ratio_t):
//   delta_t = rho_t (r_t + gamma (1 - terminated_t) next_values_t - values_t)
//   vs_t - values_t = delta_t + gamma (1 - done_t) c_t (vs_{t+1} - values_{t+1})
//   pg_advantages_t = rho_t (r_t + gamma (1 - terminated_t) vs'_t - values_t), vs'_t the target
//   of the next state: next_values_t + (1 - done_t) (vs_{t+1} - values_{t+1}).
// On-policy (ratios 1) with rho_bar, c_bar >= 1, vs - values is gae(lambda)'s advantage.
VTraceTargets vtrace(const Tensor& log_ratios, const Tensor& rewards, const Tensor& values, const Tensor& next_values,
                     const Tensor& terminated, const Tensor& dones, double gamma, double lambda = 1,
                     double rho_bar = 1, double c_bar = 1);

}  // namespace strata::rl
