// PPO with the clipped objective (Schulman et al. 2017) on a discrete-action environment,
// vectorised over --envs copies: collect --rollout steps of each copy, estimate advantages
// with GAE, then --epochs passes of minibatch updates of a separate actor and critic (64-64 tanh
// MLPs) with Adam. Defaults are RL Zoo's tuned CartPole-v1 settings.
//   strata_ppo --env CartPole-v1            train until an evaluation reaches --target
//   strata_ppo --env CartPole-v1 --play     print an episode of the saved policy
#include "actor_critic.hpp"

using namespace strata;
using namespace rl_example;

int main(int argc, char** argv) {
  CommonFlags f{.env = "CartPole-v1", .steps = 200000};
  int64_t envs_n = 8, rollout = 32, batch = 256, epochs = 20, hidden = 64;
  double lr = 1e-3, gamma = 0.98, lambda = 0.8, clip = 0.2, ent_coef = 0.0, vf_coef = 0.5, max_grad_norm = 0.5;
  CLI::App app("PPO (clipped) on a discrete-action environment; saves the policy to the hub.");
  add_common_flags(app, f);
  app.add_option("--envs", envs_n, "environment copies stepped together")->capture_default_str();
  app.add_option("--rollout", rollout, "steps of each copy per update")->capture_default_str();
  app.add_option("--batch", batch, "minibatch size")->capture_default_str();
  app.add_option("--epochs", epochs, "passes over each rollout")->capture_default_str();
  app.add_option("--hidden", hidden, "units of each hidden layer")->capture_default_str();
  app.add_option("--lr", lr, "Adam's learning rate (annealed linearly to 0)")->capture_default_str();
  app.add_option("--gamma", gamma, "discount")->capture_default_str();
  app.add_option("--lambda", lambda, "GAE's lambda")->capture_default_str();
  app.add_option("--clip", clip, "PPO's clip range (annealed linearly to 0)")->capture_default_str();
  app.add_option("--ent-coef", ent_coef, "entropy bonus")->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  start(f);
  Generator gen(f.seed);

  rl::VectorEnv envs = discrete_envs(f, envs_n, "ppo");
  const int64_t d = envs.observation_size(), n_actions = envs.action_space().n;
  ActorCritic net(n_actions, hidden);
  net(zeros({1, d}));  // builds the weights
  const Policy greedy = [&](const Tensor& obs) { return argmax(net.actor(obs), 1); };
  if (f.play) return replay(f, "ppo", net, greedy);

  optim::Adam adam(net.trainable_weights(), {.lr = lr});
  Progress progress(f);
  Tensor obs = envs.reset(f.seed);
  const int64_t per_update = rollout * envs_n, updates = std::max<int64_t>(1, f.steps / per_update);
  for (int64_t update = 0; update < updates; ++update) {
    const double remaining = 1.0 - static_cast<double>(update) / updates;
    adam.set_learning_rate(lr * remaining);
    const Rollout r = collect_rollout(envs, obs, net, rollout, gamma, lambda, gen, progress);
    // --- epochs of minibatch updates ---
    const double clip_now = clip * remaining;
    for (int64_t epoch = 0; epoch < epochs; ++epoch) {
      const Tensor order = randperm(per_update, &gen);
      for (int64_t start = 0; start < per_update; start += batch) {
        const Tensor idx = order.narrow(0, start, std::min(batch, per_update - start));
        const Tensor mb_obs = index_select(r.observations, 0, idx), mb_act = index_select(r.actions, 0, idx);
        Tensor mb_adv = index_select(r.advantages, 0, idx);
        mb_adv = (mb_adv - mb_adv.mean()) / (strata::std(mb_adv) + 1e-8);
        const Tensor logp_all = log_softmax(net.actor(mb_obs), 1);
        const Tensor ratio = exp(gather(logp_all, 1, mb_act.unsqueeze(1)).squeeze(1) - index_select(r.log_probs, 0, idx));
        const Tensor policy_loss = -minimum(ratio * mb_adv, clamp(ratio, 1 - clip_now, 1 + clip_now) * mb_adv).mean();
        const Tensor value_loss = mse_loss(net.critic(mb_obs).squeeze(1), index_select(r.returns, 0, idx));
        Tensor loss = policy_loss + value_loss * vf_coef;
        if (ent_coef > 0) loss = loss + (exp(logp_all) * logp_all).sum() * (ent_coef / mb_obs.size(0));
        adam.zero_grad();
        loss.backward();
        optim::clip_grad_norm(adam.params(), max_grad_norm);
        adam.step();
      }
    }
    if (progress.report((update + 1) * per_update, greedy)) break;
  }
  return finish(f, "ppo", net, greedy, progress,
                "envs=" + std::to_string(envs_n) + " rollout=" + std::to_string(rollout) + " lr=" + std::to_string(lr));
}
