// A2C, the synchronous advantage actor-critic (Mnih et al. 2016, as OpenAI Baselines and SB3
// run it): --envs copies step together, and every --rollout steps one gradient step on
// -log pi(a|s) A + ac.vf_coef (V - R)^2 - ac.ent_coef H over the whole ac.rollout, with RMSprop.
// Defaults: SB3's A2C settings with RL Zoo's 8 copies for CartPole-v1.
//   strata_a2c --env CartPole-v1            train until an evaluation reaches --target
//   strata_a2c --env CartPole-v1 --play     print an episode of the saved policy
#include "actor_critic.hpp"

using namespace strata;
using namespace rl_example;

int main(int argc, char** argv) {
  CommonFlags f{.env = "CartPole-v1", .steps = 500000};
  ActorCriticFlags ac;  // SB3's A2C settings, 8 copies
  CLI::App app("A2C on a discrete-action environment; saves the policy to the hub.");
  add_common_flags(app, f);
  add_actor_critic_flags(app, ac, "RMSprop");
  CLI11_PARSE(app, argc, argv);
  start(f);
  Generator gen(f.seed);

  rl::VectorEnv envs = discrete_envs(f, ac.envs, "a2c");
  ActorCritic net(envs.action_space().n, ac.hidden);
  net(zeros({1, envs.observation_size()}));
  const Policy greedy = [&](const Tensor& obs) { return argmax(net.actor(obs), 1); };
  if (f.play) return replay(f, "a2c", net, greedy);

  // SB3's RMSprop: alpha 0.99, eps 1e-5.
  optim::RMSprop rmsprop(net.trainable_weights(), {.lr = ac.lr, .alpha = 0.99, .eps = 1e-5});
  Progress progress(f);
  Tensor obs = envs.reset(f.seed);
  const int64_t per_update = ac.rollout * ac.envs, updates = std::max<int64_t>(1, f.steps / per_update);
  for (int64_t update = 0; update < updates; ++update) {
    rmsprop.set_learning_rate(ac.lr * (1.0 - static_cast<double>(update) / updates));
    const Rollout r = collect_rollout(envs, obs, net, ac.rollout, ac.gamma, ac.lambda, gen,
                                      [&](const std::vector<double>& returns) { progress.episodes_ended(returns); });
    const Tensor loss = actor_critic_loss(net, r, ac.vf_coef, ac.ent_coef);
    rmsprop.zero_grad();
    loss.backward();
    optim::clip_grad_norm(rmsprop.params(), ac.max_grad_norm);
    rmsprop.step();
    if (progress.report((update + 1) * per_update, greedy)) break;
  }
  return finish(f, "a2c", net, greedy, progress,
                "envs=" + std::to_string(ac.envs) + " rollout=" + std::to_string(ac.rollout) + " lr=" + std::to_string(ac.lr));
}
