// What the continuous-control agents (examples/rl: DDPG, TD3, SAC) share: their networks, Polyak
// averaging of target networks, and the off-policy loop: act (uniformly at random for the first
// --learning-starts steps), store the transition, one gradient update per step. Defaults follow
// RL Zoo's Pendulum-v1 settings, with smaller (64-64) networks: enough for Pendulum, 16x cheaper.
#pragma once
#include <functional>

#include <strata/rl/replay_buffer.hpp>

#include "agent_common.hpp"

namespace rl_example {

// Q(s, a) on the concatenated state and action.
struct QCritic : nn::Module {
  Mlp net;
  explicit QCritic(const std::string& prefix, int64_t hidden) : net(prefix, 1, hidden, nn::relu) {}
  Tensor q(const Tensor& obs, const Tensor& action) { return (*this)(concat({obs, action}, 1)).squeeze(1); }
  Tensor forward(const Tensor& x) override { return net(x); }
};

// target <- (1 - tau) target + tau source, weight by weight (both built, same architecture).
inline void soft_update(nn::Layer& target, const nn::Layer& source, double tau) {
  NoGradGuard no_grad;
  std::vector<Tensor> t = target.all_weights();
  const std::vector<Tensor> s = source.all_weights();
  for (size_t i = 0; i < t.size(); ++i) {
    mul_(t[i], 1.0 - tau);
    add_(t[i], s[i], tau);
  }
}

struct OffPolicyFlags {
  int64_t hidden = 64, batch = 256, buffer = 200000, learning_starts = 1000;
  double lr = 1e-3, gamma = 0.98, tau = 0.005;
};

inline void add_off_policy_flags(CLI::App& app, OffPolicyFlags& o) {
  app.add_option("--hidden", o.hidden, "units of each hidden layer")->capture_default_str();
  app.add_option("--batch", o.batch, "minibatch size")->capture_default_str();
  app.add_option("--buffer", o.buffer, "replay buffer capacity")->capture_default_str();
  app.add_option("--learning-starts", o.learning_starts, "random steps before training")->capture_default_str();
  app.add_option("--lr", o.lr, "Adam's learning rate")->capture_default_str();
  app.add_option("--gamma", o.gamma, "discount")->capture_default_str();
  app.add_option("--tau", o.tau, "Polyak averaging of the target networks")->capture_default_str();
}

// `copies` of f.env, which must have box actions in [-high, high] (the agent's name in the error).
inline rl::VectorEnv box_env(const CommonFlags& f, const std::string& agent) {
  rl::VectorEnv env(f.env, 1);
  const rl::ActionSpace& space = env.action_space();
  STRATA_CHECK(!space.discrete(), "strata_", agent, " handles box actions; ", f.env, " has Discrete(", space.n, ")");
  for (size_t i = 0; i < space.low.size(); ++i)
    STRATA_CHECK(space.low[i] == -space.high[i], "strata_", agent, " needs symmetric action bounds");
  return env;
}

// The off-policy loop. explore(obs [1, obs]) -> action [1, A] inside the box; update(batch, step)
// runs one gradient update. Returns through `progress` when the target is reached.
inline void off_policy_loop(const CommonFlags& f, const OffPolicyFlags& o, rl::VectorEnv& env, Generator& gen,
                            Progress& progress, const std::function<Tensor(const Tensor&)>& explore,
                            const std::function<void(const rl::Transitions&, int64_t)>& update, const Policy& greedy) {
  const int64_t d = env.observation_size(), a = env.action_space().size();
  const float high = env.action_space().high[0];
  rl::ReplayBuffer buffer(o.buffer, d, a);
  Tensor obs = env.reset(f.seed);
  for (int64_t step = 1; step <= f.steps; ++step) {
    Tensor action;
    if (step <= o.learning_starts) {
      action = uniform({1, a}, -high, high, kFloat32, &gen);
    } else {
      NoGradGuard no_grad;
      action = clamp(explore(obs), -high, high);
    }
    const rl::VectorStep s = env.step(action);
    const Tensor next = s.done(0) ? s.final_observations : s.observations;
    buffer.add(obs.to_vector<float>(), action.to_vector<float>(), s.rewards[0], next.to_vector<float>(), s.terminated[0]);
    progress.episodes_ended(s.finished_returns);
    obs = s.observations;
    if (step > o.learning_starts) update(buffer.sample(o.batch, gen), step);
    if (step % 1000 == 0 && progress.report(step, greedy)) return;
  }
}

}  // namespace rl_example
