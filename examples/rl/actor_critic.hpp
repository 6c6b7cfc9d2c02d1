// The actor-critic pieces that A2C and PPO (examples/rl) share: separate actor and critic MLPs
// saved as one layer, and the collection of a rollout of a VectorEnv with its GAE advantages.
#pragma once
#include <strata/rl/policy_utils.hpp>
#include <strata/rl/returns.hpp>

#include "agent_common.hpp"

namespace rl_example {

// Logits of a discrete policy and a state value (64-64 tanh MLPs by default), as one layer so the hub stores both.
struct ActorCritic : nn::Module {
  Mlp actor, critic;
  ActorCritic(int64_t actions, int64_t hidden) : actor("pi", actions, hidden), critic("v", 1, hidden) {}
  Tensor forward(const Tensor& x) override { return concat({actor(x), critic(x)}, 1); }
};

// The flags of the actor-critic agents (A2C, A3C, PPO); each sets its own defaults.
struct ActorCriticFlags {
  int64_t envs = 8, rollout = 5, hidden = 64;
  double lr = 7e-4, gamma = 0.99, lambda = 1.0, ent_coef = 0.0, vf_coef = 0.5, max_grad_norm = 0.5;
};

inline void add_actor_critic_flags(CLI::App& app, ActorCriticFlags& a, const std::string& optimizer) {
  app.add_option("--envs", a.envs, "environment copies stepped together")->capture_default_str();
  app.add_option("--rollout", a.rollout, "steps of each copy per update")->capture_default_str();
  app.add_option("--hidden", a.hidden, "units of each hidden layer")->capture_default_str();
  app.add_option("--lr", a.lr, optimizer + "'s learning rate (annealed linearly to 0)")->capture_default_str();
  app.add_option("--gamma", a.gamma, "discount")->capture_default_str();
  app.add_option("--lambda", a.lambda, "GAE's lambda (1: n-step returns)")->capture_default_str();
  app.add_option("--ent-coef", a.ent_coef, "entropy bonus")->capture_default_str();
}

// T steps of N copies, flattened step-major to T * N rows.
struct Rollout {
  Tensor observations;  // [T N, obs]
  Tensor actions;       // int64 [T N]
  Tensor log_probs;     // [T N] of the actions when taken
  Tensor advantages;    // [T N] GAE
  Tensor returns;       // [T N] advantages + values: the critic's targets
};

// Acts with the sampled policy for `steps` steps of every copy from `obs` (updated to the last
// observations), passing the returns of finished episodes to `episodes_ended`.
inline Rollout collect_rollout(rl::VectorEnv& envs, Tensor& obs, ActorCritic& net, int64_t steps, double gamma,
                               double lambda, Generator& gen,
                               const std::function<void(const std::vector<double>&)>& episodes_ended) {
  NoGradGuard no_grad;
  const int64_t n = envs.size();
  std::vector<Tensor> obs_t, next_obs_t, actions_t, logp_t;
  std::vector<float> rewards, terminated, dones;
  for (int64_t t = 0; t < steps; ++t) {
    const Tensor logits = net.actor(obs);
    const Tensor actions = rl::sample_actions(softmax(logits, 1), gen);
    logp_t.push_back(gather(log_softmax(logits, 1), 1, actions.unsqueeze(1)).squeeze(1));
    const rl::VectorStep s = envs.step(actions);
    std::vector<float> done_now(n);
    for (int64_t i = 0; i < n; ++i) {
      rewards.push_back(s.rewards[i]);
      terminated.push_back(s.terminated[i]);
      dones.push_back(done_now[i] = s.done(i));
    }
    // The state after each step: the final observation where an episode ended (so that a
    // truncated episode still bootstraps its value), otherwise the next observation.
    const Tensor ended = cast(from_vector(done_now, {n, 1}), kBool);
    obs_t.push_back(obs);
    next_obs_t.push_back(where(ended, s.final_observations, s.observations));
    actions_t.push_back(actions);
    if (!s.finished_returns.empty()) episodes_ended(s.finished_returns);
    obs = s.observations;
  }
  Rollout r{concat(obs_t, 0), concat(actions_t, 0), concat(logp_t, 0), {}, {}};
  // One critic call for all the states and one for all the next states.
  const Tensor values = net.critic(r.observations).reshape({steps, n});
  const Tensor next_values = net.critic(concat(next_obs_t, 0)).reshape({steps, n});
  const rl::Advantages adv = rl::gae(from_vector(rewards, {steps, n}), values, next_values,
                                     from_vector(terminated, {steps, n}), from_vector(dones, {steps, n}), gamma, lambda);
  r.advantages = adv.advantages.reshape({-1});
  r.returns = adv.returns.reshape({-1});
  return r;
}

// The advantage actor-critic loss over a rollout (A2C, A3C):
// -log pi(a|s) A + vf_coef (V(s) - R)^2 - ent_coef H(pi(.|s)), each term a mean over the rows.
inline Tensor actor_critic_loss(ActorCritic& net, const Rollout& r, double vf_coef, double ent_coef) {
  const Tensor logp_all = log_softmax(net.actor(r.observations), 1);
  const Tensor logp = gather(logp_all, 1, r.actions.unsqueeze(1)).squeeze(1);
  const Tensor policy_loss = -(logp * r.advantages).mean();
  const Tensor value_loss = mse_loss(net.critic(r.observations).squeeze(1), r.returns);
  Tensor loss = policy_loss + value_loss * vf_coef;
  if (ent_coef > 0) loss = loss + (exp(logp_all) * logp_all).sum() * (ent_coef / r.observations.size(0));
  return loss;
}

}  // namespace rl_example
