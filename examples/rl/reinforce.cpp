// REINFORCE (Williams 1992), TensorLayer's policy-gradient tutorial in C++: each update plays
// one whole episode in each of --envs copies, weighs log pi(a|s) by the episode's normalised
// discounted return from that step (rl::discounted_returns) and descends
// rl::cross_entropy_reward_loss with Adam.
//   strata_reinforce --env CartPole-v1            train until an evaluation reaches --target
//   strata_reinforce --env CartPole-v1 --play     print an episode of the saved policy
#include "actor_critic.hpp"

using namespace strata;
using namespace rl_example;

int main(int argc, char** argv) {
  CommonFlags f{.env = "CartPole-v1", .steps = 500000};
  int64_t envs_n = 8, hidden = 64;
  double lr = 5e-3, gamma = 0.99;
  CLI::App app("REINFORCE on a discrete-action environment; saves the policy to the hub.");
  add_common_flags(app, f);
  app.add_option("--envs", envs_n, "episodes per update, played side by side")->capture_default_str();
  app.add_option("--hidden", hidden, "units of each hidden layer")->capture_default_str();
  app.add_option("--lr", lr, "Adam's learning rate")->capture_default_str();
  app.add_option("--gamma", gamma, "discount")->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  start(f);
  Generator gen(f.seed);

  rl::VectorEnv envs = discrete_envs(f, envs_n, "reinforce");
  Mlp policy("pi", envs.action_space().n, hidden);
  policy(zeros({1, envs.observation_size()}));
  const Policy greedy = [&](const Tensor& obs) { return argmax(policy(obs), 1); };
  if (f.play) return replay(f, "reinforce", policy, greedy);

  optim::Adam adam(policy.trainable_weights(), {.lr = lr});
  Progress progress(f);
  int64_t steps = 0;
  for (uint64_t round = 0; steps < f.steps; ++round) {
    // --- one episode per copy; a copy that has finished keeps stepping, but its steps are masked out ---
    std::vector<Tensor> obs_t, actions_t;
    std::vector<float> rewards, dones, live;
    std::vector<uint8_t> finished(envs_n, 0);
    std::vector<double> episode_return(envs_n, 0.0);
    Tensor obs = envs.reset(f.seed + round * envs_n);
    int64_t left = envs_n, T = 0;
    {
      NoGradGuard no_grad;
      while (left > 0) {
        const Tensor actions = rl::sample_actions(softmax(policy(obs), 1), gen);
        const rl::VectorStep s = envs.step(actions);
        for (int64_t i = 0; i < envs_n; ++i) {
          live.push_back(finished[i] ? 0.f : 1.f);
          rewards.push_back(finished[i] ? 0.f : s.rewards[i]);
          dones.push_back(s.done(i) ? 1.f : 0.f);
          if (finished[i]) continue;
          ++steps;
          episode_return[i] += s.rewards[i];
          if (s.done(i)) {
            finished[i] = 1;
            --left;
            progress.episodes_ended({episode_return[i]});
          }
        }
        obs_t.push_back(obs);
        actions_t.push_back(actions);
        obs = s.observations;
        ++T;
      }
    }
    // --- returns from each step to its episode's end, normalised over the batch's live steps ---
    std::vector<float> g = rl::discounted_returns(from_vector(rewards, {T, envs_n}), from_vector(dones, {T, envs_n}), gamma)
                               .to_vector<float>();
    double mean = 0, sq = 0, n = 0;
    for (size_t k = 0; k < g.size(); ++k)
      if (live[k] > 0) mean += g[k], n += 1;
    mean /= n;
    for (size_t k = 0; k < g.size(); ++k)
      if (live[k] > 0) sq += (g[k] - mean) * (g[k] - mean);
    const double scale = 1.0 / (std::sqrt(sq / n) + 1e-8);
    for (size_t k = 0; k < g.size(); ++k) g[k] = live[k] > 0 ? static_cast<float>((g[k] - mean) * scale / n) : 0.f;
    const Tensor loss =
        rl::cross_entropy_reward_loss(policy(concat(obs_t, 0)), concat(actions_t, 0), from_vector(g, {T * envs_n}));
    adam.zero_grad();
    loss.backward();
    adam.step();
    if (progress.report(steps, greedy)) break;
  }
  return finish(f, "reinforce", policy, greedy, progress, "envs=" + std::to_string(envs_n) + " lr=" + std::to_string(lr));
}
