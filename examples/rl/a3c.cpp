// A3C, the asynchronous advantage actor-critic (Mnih et al. 2016): --workers threads, each with
// its own environment copies and its own copy of the network, collect n-step rollouts and
// compute gradients independently; each applies its gradients to the shared network with a
// shared RMSprop (one lock around the update) and takes the new weights back. Throughput grows
// with the workers as long as there are cores for them (docs/rl.md, scaling with agents).
//   strata_a3c --env CartPole-v1 --workers 2     train until an evaluation reaches --target
//   strata_a3c --env CartPole-v1 --play          print an episode of the saved policy
#include <atomic>
#include <mutex>
#include <thread>

#include "actor_critic.hpp"

using namespace strata;
using namespace rl_example;

int main(int argc, char** argv) {
  CommonFlags f{.env = "CartPole-v1", .steps = 500000};
  int64_t workers = 2;
  ActorCriticFlags ac{.envs = 4};  // A2C's settings, 4 copies per worker
  CLI::App app("A3C (asynchronous workers as threads) on a discrete-action environment; saves the policy to the hub.");
  add_common_flags(app, f);
  add_actor_critic_flags(app, ac, "shared RMSprop");
  app.add_option("--workers", workers, "asynchronous workers (threads)")->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  STRATA_CHECK(workers >= 1 && workers <= 256, "strata_a3c: --workers must be in [1, 256], got ", workers);
  start(f);

  const rl::VectorEnv probe = discrete_envs(f, 1, "a3c");
  const int64_t d = probe.observation_size(), n_actions = probe.action_space().n;
  ActorCritic global(n_actions, ac.hidden);
  global(zeros({1, d}));
  const Policy greedy = [&](const Tensor& obs) { return argmax(global.actor(obs), 1); };
  if (f.play) return replay(f, "a3c", global, greedy);

  optim::RMSprop rmsprop(global.trainable_weights(), {.lr = ac.lr, .alpha = 0.99, .eps = 1e-5});
  Progress progress(f);
  std::mutex mu;  // guards the global network, its optimizer and `progress`
  std::atomic<int64_t> steps{0};
  std::atomic<bool> stop{false};
  const auto worker = [&](int64_t w) {
    omp_set_num_threads(1);  // one core per worker: the workers are the parallelism
    Generator gen(f.seed * 1000 + w);
    ActorCritic local(n_actions, ac.hidden);
    local(zeros({1, d}));
    const std::vector<Tensor> local_params = local.trainable_weights();
    std::vector<Tensor> global_params = global.trainable_weights();
    {
      std::lock_guard<std::mutex> lock(mu);
      nn::assign_weights(local, global.all_weights());
    }
    rl::VectorEnv envs(f.env, ac.envs);
    Tensor obs = envs.reset(f.seed + 1000 * w);
    while (!stop) {
      const Rollout r = collect_rollout(envs, obs, local, ac.rollout, ac.gamma, ac.lambda, gen, [&](const std::vector<double>& ret) {
        std::lock_guard<std::mutex> lock(mu);
        progress.episodes_ended(ret);
      });
      for (Tensor p : local_params) p.zero_grad();
      actor_critic_loss(local, r, ac.vf_coef, ac.ent_coef).backward();
      optim::clip_grad_norm(local_params, ac.max_grad_norm);
      const int64_t now = steps += ac.rollout * ac.envs;
      std::lock_guard<std::mutex> lock(mu);
      for (size_t i = 0; i < global_params.size(); ++i) global_params[i].set_grad(local_params[i].grad());
      rmsprop.set_learning_rate(ac.lr * std::max(0.0, 1.0 - static_cast<double>(now) / f.steps));
      rmsprop.step();
      nn::assign_weights(local, global.all_weights());
      if (now >= f.steps || progress.report(now, greedy)) stop = true;
    }
  };
  std::vector<std::thread> threads;
  for (int64_t w = 0; w < workers; ++w) threads.emplace_back(worker, w);
  for (auto& t : threads) t.join();
  return finish(f, "a3c", global, greedy, progress,
                "workers=" + std::to_string(workers) + " envs=" + std::to_string(ac.envs) + " lr=" + std::to_string(ac.lr));
}
