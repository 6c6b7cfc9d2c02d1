// TD3 (Fujimoto et al. 2018) and DDPG (Lillicrap et al. 2016, `--ddpg`) on a continuous-action
// environment: a deterministic tanh actor explored with Gaussian noise, Q critics trained on
// Bellman targets from slowly averaged target networks. TD3 adds its three fixes to DDPG: the
// smaller of twin critics in the target, noise on the target action, and actor updates every
// second step.
//   strata_td3 --env Pendulum-v1             train until an evaluation reaches --target
//   strata_td3 --env Pendulum-v1 --play      print an episode of the saved policy
#include "off_policy.hpp"

using namespace strata;
using namespace rl_example;

namespace {

// a = high * tanh(mlp(s)), and the two critics; one layer so the hub stores them together.
struct Td3Nets : nn::Module {
  Mlp actor;
  QCritic q1, q2;
  float high;
  Td3Nets(const std::string& tag, int64_t actions, int64_t hidden, float high)
      : actor(tag + "pi", actions, hidden, nn::relu), q1(tag + "q1", hidden), q2(tag + "q2", hidden), high(high) {}
  Tensor act(const Tensor& obs) { return tanh(actor(obs)) * high; }
  Tensor forward(const Tensor& obs) override {
    const Tensor a = act(obs);
    return concat({a, q1.q(obs, a).unsqueeze(1), q2.q(obs, a).unsqueeze(1)}, 1);
  }
};

}  // namespace

int main(int argc, char** argv) {
  CommonFlags f{.env = "Pendulum-v1", .steps = 30000, .target = -200};
  OffPolicyFlags o;
  double action_noise = 0.1, target_noise = 0.2, noise_clip = 0.5;
  int64_t policy_delay = 2;
  bool ddpg = false;
  CLI::App app("TD3 (or DDPG with --ddpg) on a continuous-action environment; saves the policy to the hub.");
  add_common_flags(app, f);
  add_off_policy_flags(app, o);
  app.add_option("--action-noise", action_noise, "exploration noise, a fraction of the action bound")->capture_default_str();
  app.add_flag("--ddpg", ddpg, "DDPG: one critic, no target noise, the actor updated every step");
  CLI11_PARSE(app, argc, argv);
  start(f);
  Generator gen(f.seed);
  const std::string agent = ddpg ? "ddpg" : "td3";
  if (ddpg) policy_delay = 1;

  rl::VectorEnv env = box_env(f, agent);
  const int64_t d = env.observation_size(), A = env.action_space().size();
  const float high = env.action_space().high[0];
  Td3Nets net("", A, o.hidden, high), target("target_", A, o.hidden, high);
  net(zeros({1, d}));
  target(zeros({1, d}));
  const Policy greedy = [&](const Tensor& obs) { return net.act(obs); };
  if (f.play) return replay(f, agent, net, greedy);
  nn::assign_weights(target, net.all_weights());

  optim::Adam actor_opt(net.actor.trainable_weights(), {.lr = o.lr});
  std::vector<Tensor> critic_params = net.q1.trainable_weights();
  if (!ddpg) {
    const auto q2 = net.q2.trainable_weights();
    critic_params.insert(critic_params.end(), q2.begin(), q2.end());
  }
  optim::Adam critic_opt(critic_params, {.lr = o.lr});
  Progress progress(f);
  const auto explore = [&](const Tensor& obs) { return net.act(obs) + randn({1, A}, kFloat32, &gen) * (action_noise * high); };
  const auto update = [&](const rl::Transitions& t, int64_t step) {
    Tensor y;
    {
      NoGradGuard no_grad;
      Tensor next_a = target.act(t.next_observations);
      if (!ddpg) {  // target policy smoothing
        const Tensor noise = clamp(randn(next_a.shape(), kFloat32, &gen) * (target_noise * high), -noise_clip * high,
                                   noise_clip * high);
        next_a = clamp(next_a + noise, -high, high);
      }
      Tensor next_q = target.q1.q(t.next_observations, next_a);
      if (!ddpg) next_q = minimum(next_q, target.q2.q(t.next_observations, next_a));
      y = t.rewards + (1.0 - t.terminated) * next_q * o.gamma;
    }
    Tensor critic_loss = mse_loss(net.q1.q(t.observations, t.actions), y);
    if (!ddpg) critic_loss = critic_loss + mse_loss(net.q2.q(t.observations, t.actions), y);
    critic_opt.zero_grad();
    critic_loss.backward();
    critic_opt.step();
    if (step % policy_delay != 0) return;
    const Tensor actor_loss = -net.q1.q(t.observations, net.act(t.observations)).mean();
    actor_opt.zero_grad();
    actor_loss.backward();
    actor_opt.step();
    soft_update(target, net, o.tau);
  };
  off_policy_loop(f, o, env, gen, progress, explore, update, greedy);
  return finish(f, agent, net, greedy, progress, "hidden=" + std::to_string(o.hidden) + " lr=" + std::to_string(o.lr));
}
