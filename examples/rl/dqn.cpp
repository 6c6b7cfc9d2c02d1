// DQN (Mnih et al. 2015) with the double-Q target (van Hasselt et al. 2016) and the dueling head
// (Wang et al. 2016), each a flag, and optional prioritised replay: epsilon-greedy acting, a
// replay buffer, Huber loss on the TD error, a target network synced after each training phase.
// Defaults are RL Zoo's tuned CartPole-v1 settings (train every 256 steps, 128 gradient steps).
//   strata_dqn --env CartPole-v1            train until an evaluation reaches --target
//   strata_dqn --env CartPole-v1 --play     print an episode of the saved policy
#include <memory>
#include <random>

#include "agent_common.hpp"
#include <strata/rl/prioritized_replay_buffer.hpp>

using namespace strata;
using namespace rl_example;

namespace {

// Q(s, .): a 2-layer ReLU MLP, then either one linear head or the dueling streams
// Q = V(s) + A(s, a) - mean_a A(s, a).
struct QNet : nn::Module {
  nn::Dense h1, h2, value, advantage;
  bool dueling;
  QNet(int64_t actions, int64_t hidden, bool dueling)
      : h1(hidden, nn::relu, "q_1"), h2(hidden, nn::relu, "q_2"), value(1, {}, "q_value"),
        advantage(actions, {}, "q_advantage"), dueling(dueling) {}
  Tensor forward(const Tensor& x) override {
    const Tensor h = h2(h1(x));
    const Tensor a = advantage(h);
    return dueling ? value(h) + a - mean(a, {1}, true) : a;
  }
};

}  // namespace

int main(int argc, char** argv) {
  CommonFlags f{.env = "CartPole-v1", .steps = 100000};
  int64_t hidden = 256, batch = 64, buffer_size = 100000, learning_starts = 1000, train_freq = 256, gradient_steps = 128;
  double lr = 2.3e-3, gamma = 0.99, exploration_fraction = 0.16, final_epsilon = 0.04, max_grad_norm = 10;
  bool double_q = true, dueling = true, prioritized = false;
  CLI::App app("DQN (double, dueling, optionally prioritised replay) on a discrete-action environment; saves the "
               "Q-network to the hub.");
  add_common_flags(app, f);
  app.add_option("--hidden", hidden, "units of each hidden layer")->capture_default_str();
  app.add_option("--batch", batch, "minibatch size")->capture_default_str();
  app.add_option("--buffer", buffer_size, "replay buffer capacity")->capture_default_str();
  app.add_option("--learning-starts", learning_starts, "random steps before training")->capture_default_str();
  app.add_option("--train-freq", train_freq, "environment steps between training phases")->capture_default_str();
  app.add_option("--gradient-steps", gradient_steps, "gradient steps per training phase")->capture_default_str();
  app.add_option("--lr", lr, "Adam's learning rate")->capture_default_str();
  app.add_option("--gamma", gamma, "discount")->capture_default_str();
  app.add_option("--exploration-fraction", exploration_fraction, "fraction of --steps over which epsilon falls to its final value")
      ->capture_default_str();
  app.add_option("--final-epsilon", final_epsilon, "epsilon after the exploration phase")->capture_default_str();
  app.add_flag("--double,!--no-double", double_q, "double-Q targets (default on)");
  app.add_flag("--dueling,!--no-dueling", dueling, "dueling head (default on)");
  app.add_flag("--prioritized", prioritized, "prioritised replay (alpha 0.6, beta 0.4 -> 1)");
  CLI11_PARSE(app, argc, argv);
  start(f);
  Generator gen(f.seed);

  rl::VectorEnv env = discrete_envs(f, 1, "dqn");
  const int64_t d = env.observation_size(), n_actions = env.action_space().n;
  QNet online(n_actions, hidden, dueling), target(n_actions, hidden, dueling);
  online(zeros({1, d}));
  target(zeros({1, d}));
  const Policy greedy = [&](const Tensor& obs) { return argmax(online(obs), 1); };
  if (f.play) return replay(f, "dqn", online, greedy);
  nn::assign_weights(target, online.all_weights());

  optim::Adam adam(online.trainable_weights(), {.lr = lr});
  std::unique_ptr<rl::ReplayBuffer> buffer =
      prioritized ? std::make_unique<rl::PrioritizedReplayBuffer>(buffer_size, d, 1)
                  : std::make_unique<rl::ReplayBuffer>(buffer_size, d, 1);
  auto* per = dynamic_cast<rl::PrioritizedReplayBuffer*>(buffer.get());
  Progress progress(f);
  std::uniform_real_distribution<double> coin(0, 1);
  std::uniform_int_distribution<int64_t> random_action(0, n_actions - 1);
  Tensor obs = env.reset(f.seed);
  for (int64_t step = 1; step <= f.steps; ++step) {
    // --- act epsilon-greedily ---
    const double explore = std::min(1.0, step / (exploration_fraction * f.steps));
    const double epsilon = 1.0 + explore * (final_epsilon - 1.0);
    int64_t action;
    if (step <= learning_starts || coin(gen.engine()) < epsilon) {
      action = random_action(gen.engine());
    } else {
      NoGradGuard no_grad;
      action = argmax(online(obs), 1).item<int64_t>();
    }
    const rl::VectorStep s = env.step(from_vector(std::vector<int64_t>{action}, {1}));
    const float a = static_cast<float>(action);
    // The transition's next state is the ended episode's last one, not the autoreset's first.
    const Tensor next = s.done(0) ? s.final_observations : s.observations;
    buffer->add(obs.to_vector<float>(), std::span<const float>(&a, 1), s.rewards[0], next.to_vector<float>(),
                s.terminated[0]);
    progress.episodes_ended(s.finished_returns);
    obs = s.observations;

    // --- train ---
    if (step > learning_starts && step % train_freq == 0) {
      if (per) per->set_beta(std::min(1.0, 0.4 + 0.6 * step / f.steps));
      for (int64_t g = 0; g < gradient_steps; ++g) {
        const rl::Transitions t = buffer->sample(batch, gen);
        Tensor y;
        {
          NoGradGuard no_grad;
          const Tensor next_q = target(t.next_observations);
          // Double DQN: the online network picks the next action, the target network values it.
          const Tensor best = double_q ? gather(next_q, 1, argmax(online(t.next_observations), 1).unsqueeze(1)).squeeze(1)
                                       : amax(next_q, {1});
          y = t.rewards + (1.0 - t.terminated) * best * gamma;
        }
        const Tensor q = gather(online(t.observations), 1, cast(t.actions, kInt64)).squeeze(1);
        const Tensor loss = (huber_loss(q, y, Reduction::none) * t.weights).mean();
        adam.zero_grad();
        loss.backward();
        optim::clip_grad_norm(adam.params(), max_grad_norm);
        adam.step();
        if (per) per->update_priorities(t.indices, (q.detach() - y).to_vector<float>());
      }
      nn::assign_weights(target, online.all_weights());
      if (progress.report(step, greedy)) break;
    }
  }
  return finish(f, "dqn", online, greedy, progress,
                std::string("double=") + (double_q ? "1" : "0") + " dueling=" + (dueling ? "1" : "0") +
                    " prioritized=" + (prioritized ? "1" : "0"));
}
