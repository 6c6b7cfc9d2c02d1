// What the reinforcement-learning examples (strata_dqn, strata_reinforce, strata_a2c, strata_ppo)
// share: their common flags, evaluation over many episodes, `--play` (an episode as text), the
// stopping rule that records time to target, and saving / loading the policy in the hub.
#pragma once
#include <CLI/CLI.hpp>
#include <omp.h>

#include <chrono>
#include <cstdio>
#include <deque>
#include <functional>
#include <numeric>
#include <string>

#include <strata/rl/make_env.hpp>
#include <strata/rl/vector_env.hpp>
#include <strata/strata.hpp>

namespace rl_example {

using namespace strata;

struct CommonFlags {
  std::string env;
  int64_t steps = 0;        // the budget of environment steps
  uint64_t seed = 1;
  std::string hub = "strata.db";
  std::string model;        // the hub model name; default: <agent>_<env>
  int64_t eval_episodes = 100;
  double target = 475;      // stop once a full evaluation reaches it
  bool play = false;
  int threads = 1;          // OpenMP threads for the network's ops and for stepping the copies
};

inline void add_common_flags(CLI::App& app, CommonFlags& f) {
  app.add_option("--env", f.env, "Gymnasium id: " + [] {
    std::string ids;
    for (const auto& id : rl::env_ids()) ids += (ids.empty() ? "" : ", ") + id;
    return ids;
  }())->capture_default_str();
  app.add_option("--steps", f.steps, "budget of environment steps")->capture_default_str();
  app.add_option("--seed", f.seed, "seed of the environments and the network")->capture_default_str();
  app.add_option("--hub", f.hub, "hub (SQLite path or postgresql:// URL) the policy is saved to")->capture_default_str();
  app.add_option("--model", f.model, "hub model name (default <agent>_<env>)");
  app.add_option("--eval-episodes", f.eval_episodes, "episodes of each evaluation")->capture_default_str();
  app.add_option("--target", f.target, "stop training once an evaluation's mean return reaches this")
      ->capture_default_str();
  app.add_option("--threads", f.threads, "threads for the network's ops and the environment copies")
      ->capture_default_str();
  app.add_flag("--play", f.play, "load the saved policy from the hub and print one episode as text");
}

// Two hidden layers and a linear output; `prefix` names the layers, which is how the hub finds
// the weights again for --play.
struct Mlp : nn::Module {
  nn::Dense h1, h2, out;
  Mlp(const std::string& prefix, int64_t outputs, int64_t hidden, nn::Activation act = nn::tanh)
      : h1(hidden, act, prefix + "_1"), h2(hidden, act, prefix + "_2"), out(outputs, {}, prefix + "_out") {}
  Tensor forward(const Tensor& x) override { return out(h2(h1(x))); }
};

// After the flags are parsed: the threads of the network's ops and the global seed.
inline void start(const CommonFlags& f) {
  omp_set_num_threads(f.threads);
  manual_seed(f.seed);
}

// `copies` of f.env, which must have discrete actions (the agent's name is in the error).
inline rl::VectorEnv discrete_envs(const CommonFlags& f, int64_t copies, const std::string& agent) {
  rl::VectorEnv envs(f.env, copies, f.threads);
  STRATA_CHECK(envs.action_space().discrete(), "strata_", agent, " handles discrete actions; ", f.env, " has a box");
  return envs;
}

// The policy's action for a batch of observations [N, obs]: int64 [N] or float32 [N, A].
using Policy = std::function<Tensor(const Tensor&)>;

inline double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// The mean return of `episodes` episodes (one per copy of a VectorEnv, seeds seed..), acting
// with `policy` (deterministic: the agents pass their greedy or mean action).
inline double evaluate(const std::string& env, int64_t episodes, uint64_t seed, const Policy& policy) {
  NoGradGuard no_grad;
  rl::VectorEnv envs(env, episodes);
  Tensor obs = envs.reset(seed);
  std::vector<double> returns(episodes, 0.0);
  std::vector<uint8_t> finished(episodes, 0);
  int64_t left = episodes;
  while (left > 0) {
    const rl::VectorStep s = envs.step(policy(obs));
    for (int64_t i = 0; i < episodes; ++i) {
      if (finished[i]) continue;
      returns[i] += s.rewards[i];
      if (s.done(i)) {
        finished[i] = 1;
        --left;
      }
    }
    obs = s.observations;
  }
  return std::accumulate(returns.begin(), returns.end(), 0.0) / episodes;
}

// Prints one episode, a line per step.
inline void play(const std::string& env_id, uint64_t seed, const Policy& policy) {
  NoGradGuard no_grad;
  auto env = rl::make_env(env_id);
  std::vector<float> obs = env->reset(seed);
  std::printf("%4d %s\n", 0, env->render().c_str());
  double total = 0;
  for (;;) {
    const Tensor a = policy(from_vector(obs, {1, env->observation_size()}));
    const rl::Step s = env->step(a.to(kFloat32).reshape({-1}).to_vector<float>());
    total += s.reward;
    std::printf("%4lld %s\n", static_cast<long long>(env->elapsed_steps()), env->render().c_str());
    if (s.done()) {
      std::printf("episode %s after %lld steps, return %.1f\n", s.terminated ? "terminated" : "truncated",
                  static_cast<long long>(env->elapsed_steps()), total);
      return;
    }
    obs = s.observation;
  }
}

// Training progress: the last 100 training episodes' returns, evaluations when they look good
// enough, and the wall-clock time and environment steps at which the target was first reached.
class Progress {
 public:
  explicit Progress(const CommonFlags& flags) : flags_(flags), start_(std::chrono::steady_clock::now()) {}
  void episodes_ended(const std::vector<double>& returns) {
    for (double r : returns) {
      recent_.push_back(r);
      if (recent_.size() > 100) recent_.pop_front();
      ++episodes_;
    }
  }
  double recent_mean() const {
    return recent_.empty() ? 0 : std::accumulate(recent_.begin(), recent_.end(), 0.0) / recent_.size();
  }
  // Called every so often; prints a line now and then and, every eval_gap steps, checks the
  // greedy policy on 10 episodes; when those reach the target, a full evaluation decides.
  // True when the target is reached (training stops).
  bool report(int64_t steps, const Policy& policy) {
    steps_ = steps;
    if (steps - last_print_ >= print_gap_) {
      last_print_ = steps;
      std::printf("steps %8lld  episodes %6lld  mean return (last 100) %8.2f  %6.1f s\n", static_cast<long long>(steps),
                  static_cast<long long>(episodes_), recent_mean(), seconds_since(start_));
      std::fflush(stdout);
    }
    if (steps - last_eval_ < eval_gap_) return false;
    last_eval_ = steps;
    if (evaluate(flags_.env, 10, flags_.seed + 3000000 + steps, policy) < flags_.target) return false;
    const double full = evaluate(flags_.env, flags_.eval_episodes, flags_.seed + 1000000, policy);
    std::printf("  evaluation over %lld episodes at %lld steps: mean return %.2f\n",
                static_cast<long long>(flags_.eval_episodes), static_cast<long long>(steps), full);
    if (full < flags_.target) return false;
    reached_seconds_ = seconds_since(start_);
    reached_steps_ = steps;
    std::printf("target %.1f reached after %lld environment steps, %.1f s\n", flags_.target,
                static_cast<long long>(steps), reached_seconds_);
    return true;
  }
  void set_eval_gap(int64_t steps) { eval_gap_ = steps; }
  double seconds() const { return seconds_since(start_); }
  int64_t steps() const { return steps_; }
  double reached_seconds() const { return reached_seconds_; }
  int64_t reached_steps() const { return reached_steps_; }

 private:
  const CommonFlags& flags_;
  std::chrono::steady_clock::time_point start_;
  std::deque<double> recent_;
  int64_t episodes_ = 0, last_eval_ = 0, eval_gap_ = 5000, reached_steps_ = -1;
  int64_t last_print_ = 0, print_gap_ = 10000, steps_ = 0;
  double reached_seconds_ = -1;
};

inline std::string model_name(const CommonFlags& f, const std::string& agent) {
  return f.model.empty() ? agent + "_" + f.env : f.model;
}

// The final evaluation, then the policy's weights (by layer name) into the hub with it.
inline int finish(const CommonFlags& f, const std::string& agent, nn::Layer& net, const Policy& policy,
                  const Progress& progress, const std::string& config) {
  const double mean_return = evaluate(f.env, f.eval_episodes, f.seed + 2000000, policy);
  std::printf("final evaluation over %lld episodes: mean return %.2f (target %.1f), training %.1f s, "
              "%lld environment steps (%.0f per second)\n",
              static_cast<long long>(f.eval_episodes), mean_return, f.target, progress.seconds(),
              static_cast<long long>(progress.steps()), progress.steps() / progress.seconds());
  hub::Hub store = hub::Hub::open(f.hub);
  std::map<std::string, double> metrics = {{"mean_return", mean_return}, {"train_seconds", progress.seconds()}};
  if (progress.reached_steps() >= 0) {
    metrics["steps_to_target"] = static_cast<double>(progress.reached_steps());
    metrics["seconds_to_target"] = progress.reached_seconds();
  }
  // A static policy (nn::Model) is kept whole, so `strata serve` serves it; a dynamic one's
  // weights are kept under the agent's name, to be loaded into the agent's class.
  hub::ModelMeta meta{.metrics = metrics, .values = {{"config", config}}};
  const bool whole = dynamic_cast<const nn::Model*>(&net) != nullptr;
  if (!whole) meta.architecture = agent;  // lifecycle::save_model writes a static model's graph there
  const int64_t version = whole ? lifecycle::save_model(store, model_name(f, agent), net, std::move(meta))
                                : store.save_model(model_name(f, agent), net.named_weights(), meta);
  std::printf("saved %s version %lld in %s\n", model_name(f, agent).c_str(), static_cast<long long>(version),
              f.hub.c_str());
  return 0;
}

// `--play`: the newest saved version's weights into `net` (built by one call first), then one episode.
inline int replay(const CommonFlags& f, const std::string& agent, nn::Layer& net, const Policy& policy) {
  hub::Hub store = hub::Hub::open(f.hub);
  const hub::LoadedModel m = store.load_model(model_name(f, agent));
  nn::assign_weights_by_name(net, m.weights);
  std::printf("%s version %lld from %s\n", m.info.name.c_str(), static_cast<long long>(m.info.version), f.hub.c_str());
  play(f.env, f.seed, policy);
  return 0;
}

}  // namespace rl_example
