// SAC (Haarnoja et al. 2018, with the learned temperature of the second paper) on a
// continuous-action environment: a squashed-Gaussian actor maximising Q - alpha log pi, twin Q
// critics with averaged targets, and alpha tuned towards the target entropy -|A|.
//   strata_sac --env Pendulum-v1             train until an evaluation reaches --target
//   strata_sac --env Pendulum-v1 --play      print an episode of the saved policy (its mean action)
#include <cmath>
#include <numbers>

#include "off_policy.hpp"

using namespace strata;
using namespace rl_example;

namespace {

struct SacNets : nn::Module {
  Mlp actor;  // [mean, log std] per action dimension
  QCritic q1, q2;
  int64_t actions;
  float high;
  SacNets(const std::string& tag, int64_t actions, int64_t hidden, float high)
      : actor(tag + "pi", 2 * actions, hidden, nn::relu), q1(tag + "q1", hidden), q2(tag + "q2", hidden), actions(actions),
        high(high) {}
  Tensor mean_action(const Tensor& obs) { return tanh(actor(obs).narrow(1, 0, actions)) * high; }
  // A sampled action (reparameterised, so gradients flow through it) and its log-probability,
  // corrected for the tanh squashing and the scaling by `high`.
  std::pair<Tensor, Tensor> sample(const Tensor& obs, Generator& gen) {
    const Tensor out = actor(obs);
    const Tensor mu = out.narrow(1, 0, actions), log_std = clamp(out.narrow(1, actions, actions), -20, 2);
    const Tensor eps = randn(mu.shape(), kFloat32, &gen);
    const Tensor squashed = tanh(mu + exp(log_std) * eps);
    const double log_sqrt_2pi = 0.5 * std::log(2 * std::numbers::pi);
    const Tensor gaussian = sum(eps * eps * -0.5 - log_std - log_sqrt_2pi, {1});
    const Tensor jacobian = sum(log((1.0 - squashed * squashed) * high + 1e-6), {1});
    return {squashed * high, gaussian - jacobian};
  }
  Tensor forward(const Tensor& obs) override {
    const Tensor a = mean_action(obs);
    return concat({a, q1.q(obs, a).unsqueeze(1), q2.q(obs, a).unsqueeze(1)}, 1);
  }
};

}  // namespace

int main(int argc, char** argv) {
  CommonFlags f{.env = "Pendulum-v1", .steps = 30000, .target = -200};
  OffPolicyFlags o;
  CLI::App app("SAC on a continuous-action environment; saves the policy to the hub.");
  add_common_flags(app, f);
  add_off_policy_flags(app, o);
  CLI11_PARSE(app, argc, argv);
  start(f);
  Generator gen(f.seed);

  rl::VectorEnv env = box_env(f, "sac");
  const int64_t d = env.observation_size(), A = env.action_space().size();
  const float high = env.action_space().high[0];
  SacNets net("", A, o.hidden, high), target("target_", A, o.hidden, high);
  net(zeros({1, d}));
  target(zeros({1, d}));
  const Policy greedy = [&](const Tensor& obs) { return net.mean_action(obs); };
  if (f.play) return replay(f, "sac", net, greedy);
  nn::assign_weights(target, net.all_weights());

  optim::Adam actor_opt(net.actor.trainable_weights(), {.lr = o.lr});
  std::vector<Tensor> critic_params = net.q1.trainable_weights();
  for (const Tensor& w : net.q2.trainable_weights()) critic_params.push_back(w);
  optim::Adam critic_opt(critic_params, {.lr = o.lr});
  Tensor log_alpha = zeros({1});
  log_alpha.requires_grad_();
  optim::Adam alpha_opt({log_alpha}, {.lr = o.lr});
  const double target_entropy = -static_cast<double>(A);
  Progress progress(f);
  const auto explore = [&](const Tensor& obs) { return net.sample(obs, gen).first; };
  const auto update = [&](const rl::Transitions& t, int64_t) {
    const double alpha = std::exp(log_alpha.item<double>());
    Tensor y;
    {
      NoGradGuard no_grad;
      const auto [next_a, next_logp] = net.sample(t.next_observations, gen);
      const Tensor next_q = minimum(target.q1.q(t.next_observations, next_a), target.q2.q(t.next_observations, next_a));
      y = t.rewards + (1.0 - t.terminated) * (next_q - next_logp * alpha) * o.gamma;
    }
    const Tensor critic_loss =
        mse_loss(net.q1.q(t.observations, t.actions), y) + mse_loss(net.q2.q(t.observations, t.actions), y);
    critic_opt.zero_grad();
    critic_loss.backward();
    critic_opt.step();

    const auto [a, logp] = net.sample(t.observations, gen);
    const Tensor q = minimum(net.q1.q(t.observations, a), net.q2.q(t.observations, a));
    const Tensor actor_loss = (logp * alpha - q).mean();
    actor_opt.zero_grad();
    actor_loss.backward();
    actor_opt.step();

    const Tensor alpha_loss = -(log_alpha * (logp.detach() + target_entropy)).mean();
    alpha_opt.zero_grad();
    alpha_loss.backward();
    alpha_opt.step();
    soft_update(target, net, o.tau);
  };
  off_policy_loop(f, o, env, gen, progress, explore, update, greedy);
  return finish(f, "sac", net, greedy, progress, "hidden=" + std::to_string(o.hidden) + " lr=" + std::to_string(o.lr));
}
