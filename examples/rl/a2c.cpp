// A2C, the synchronous advantage actor-critic (Mnih et al. 2016, as OpenAI Baselines and SB3
// run it): --envs copies step together, and every --rollout steps one gradient step on
// -log pi(a|s) A + vf_coef (V - R)^2 - ent_coef H over the whole rollout, with RMSprop.
// Defaults: SB3's A2C settings with RL Zoo's 8 copies for CartPole-v1.
//   strata_a2c --env CartPole-v1            train until an evaluation reaches --target
//   strata_a2c --env CartPole-v1 --play     print an episode of the saved policy
#include "actor_critic.hpp"

using namespace strata;
using namespace rl_example;

int main(int argc, char** argv) {
  CommonFlags f{.env = "CartPole-v1", .steps = 500000};
  int64_t envs_n = 8, rollout = 5, hidden = 64;
  double lr = 7e-4, gamma = 0.99, lambda = 1.0, ent_coef = 0.0, vf_coef = 0.5, max_grad_norm = 0.5;
  CLI::App app("A2C on a discrete-action environment; saves the policy to the hub.");
  add_common_flags(app, f);
  app.add_option("--envs", envs_n, "environment copies stepped together")->capture_default_str();
  app.add_option("--rollout", rollout, "steps of each copy per update")->capture_default_str();
  app.add_option("--hidden", hidden, "units of each hidden layer")->capture_default_str();
  app.add_option("--lr", lr, "RMSprop's learning rate (annealed linearly to 0)")->capture_default_str();
  app.add_option("--gamma", gamma, "discount")->capture_default_str();
  app.add_option("--lambda", lambda, "GAE's lambda (1: n-step returns)")->capture_default_str();
  app.add_option("--ent-coef", ent_coef, "entropy bonus")->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  start(f);
  Generator gen(f.seed);

  rl::VectorEnv envs = discrete_envs(f, envs_n, "a2c");
  ActorCritic net(envs.action_space().n, hidden);
  net(zeros({1, envs.observation_size()}));
  const Policy greedy = [&](const Tensor& obs) { return argmax(net.actor(obs), 1); };
  if (f.play) return replay(f, "a2c", net, greedy);

  // SB3's RMSprop: alpha 0.99, eps 1e-5.
  optim::RMSprop rmsprop(net.trainable_weights(), {.lr = lr, .alpha = 0.99, .eps = 1e-5});
  Progress progress(f);
  Tensor obs = envs.reset(f.seed);
  const int64_t per_update = rollout * envs_n, updates = std::max<int64_t>(1, f.steps / per_update);
  for (int64_t update = 0; update < updates; ++update) {
    rmsprop.set_learning_rate(lr * (1.0 - static_cast<double>(update) / updates));
    const Rollout r = collect_rollout(envs, obs, net, rollout, gamma, lambda, gen, progress);
    const Tensor logp_all = log_softmax(net.actor(r.observations), 1);
    const Tensor logp = gather(logp_all, 1, r.actions.unsqueeze(1)).squeeze(1);
    const Tensor policy_loss = -(logp * r.advantages).mean();
    const Tensor value_loss = mse_loss(net.critic(r.observations).squeeze(1), r.returns);
    Tensor loss = policy_loss + value_loss * vf_coef;
    if (ent_coef > 0) loss = loss + (exp(logp_all) * logp_all).sum() * (ent_coef / per_update);
    rmsprop.zero_grad();
    loss.backward();
    optim::clip_grad_norm(rmsprop.params(), max_grad_norm);
    rmsprop.step();
    if (progress.report((update + 1) * per_update, greedy)) break;
  }
  return finish(f, "a2c", net, greedy, progress,
                "envs=" + std::to_string(envs_n) + " rollout=" + std::to_string(rollout) + " lr=" + std::to_string(lr));
}
