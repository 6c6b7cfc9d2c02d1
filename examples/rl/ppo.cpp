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
  ActorCriticFlags ac{.envs = 8, .rollout = 32, .lr = 1e-3, .gamma = 0.98, .lambda = 0.8};
  int64_t batch = 256, epochs = 20;
  double clip = 0.2;
  CLI::App app("PPO (clipped) on a discrete-action environment; saves the policy to the hub.");
  add_common_flags(app, f);
  add_actor_critic_flags(app, ac, "Adam");
  app.add_option("--batch", batch, "minibatch size")->capture_default_str();
  app.add_option("--epochs", epochs, "passes over each rollout")->capture_default_str();
  app.add_option("--clip", clip, "PPO's clip range (annealed linearly to 0)")->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  start(f);
  Generator gen(f.seed);

  rl::VectorEnv envs = discrete_envs(f, ac.envs, "ppo");
  const int64_t d = envs.observation_size(), n_actions = envs.action_space().n;
  ActorCritic net(n_actions, ac.hidden);
  net(zeros({1, d}));  // builds the weights
  const Policy greedy = [&](const Tensor& obs) { return argmax(net.actor(obs), 1); };
  if (f.play) return replay(f, "ppo", net, greedy);

  optim::Adam adam(net.trainable_weights(), {.lr = ac.lr});
  Progress progress(f);
  Tensor obs = envs.reset(f.seed);
  const int64_t per_update = ac.rollout * ac.envs, updates = std::max<int64_t>(1, f.steps / per_update);
  for (int64_t update = 0; update < updates; ++update) {
    const double remaining = 1.0 - static_cast<double>(update) / updates;
    adam.set_learning_rate(ac.lr * remaining);
    const Rollout r = collect_rollout(envs, obs, net, ac.rollout, ac.gamma, ac.lambda, gen,
                                      [&](const std::vector<double>& returns) { progress.episodes_ended(returns); });
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
        Tensor loss = policy_loss + value_loss * ac.vf_coef;
        if (ac.ent_coef > 0) loss = loss + (exp(logp_all) * logp_all).sum() * (ac.ent_coef / mb_obs.size(0));
        adam.zero_grad();
        loss.backward();
        optim::clip_grad_norm(adam.params(), ac.max_grad_norm);
        adam.step();
      }
    }
    if (progress.report((update + 1) * per_update, greedy)) break;
  }
  return finish(f, "ppo", net, greedy, progress,
                "envs=" + std::to_string(ac.envs) + " rollout=" + std::to_string(ac.rollout) + " lr=" + std::to_string(ac.lr));
}
