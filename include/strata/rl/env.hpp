// Env: one copy of a control task with Gymnasium's interface. reset(seed) starts an episode,
// step(action) advances it and says the reward and whether the episode ended: `terminated` when
// the task reached a terminal state (bootstrap nothing after it), `truncated` when the episode hit
// its time limit (max_episode_steps, Gymnasium's TimeLimit) and the state is not terminal.
//
// Requires: reset before the first step and after an episode ends; actions inside the action
// space (a discrete action an integer in [0, n), a continuous one finite and inside [low, high]).
// Anything else throws strata::Error naming the environment and the action, where Gymnasium
// would assert, clip silently or carry on with undefined results.
#pragma once
#include <algorithm>
#include <array>
#include <cstdint>
#include <random>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace strata::rl {

// Discrete(n) when n > 0; otherwise a box of low.size() continuous values.
struct ActionSpace {
  int64_t n = 0;
  std::vector<float> low, high;
  static ActionSpace discrete_n(int64_t n) { return ActionSpace{n, {}, {}}; }
  static ActionSpace box(std::vector<float> low, std::vector<float> high) { return ActionSpace{0, std::move(low), std::move(high)}; }
  bool discrete() const { return n > 0; }
  // The number of floats in one action (1 for a discrete action, its index).
  int64_t size() const { return discrete() ? 1 : static_cast<int64_t>(low.size()); }
};

struct Step {
  std::vector<float> observation;
  double reward = 0;
  bool terminated = false;
  bool truncated = false;
  bool done() const { return terminated || truncated; }
};

class Env {
 public:
  virtual ~Env() = default;
  const std::string& name() const { return name_; }
  int64_t observation_size() const { return observation_size_; }
  const ActionSpace& action_space() const { return action_space_; }
  int64_t max_episode_steps() const { return max_episode_steps_; }
  int64_t elapsed_steps() const { return elapsed_; }

  // Starts an episode from a start state drawn with std::mt19937_64 seeded by `seed`, from
  // Gymnasium's start distribution (not its numbers: Gymnasium draws with NumPy's PCG64).
  std::vector<float> reset(uint64_t seed);
  // Starts an episode drawing the start state from this copy's generator (seeded by the last
  // reset(seed), or 0).
  std::vector<float> reset();
  Step step(std::span<const float> action);
  Step step(int64_t discrete_action);

  // The physical state in double precision (Gymnasium's `env.unwrapped.state`), and starting an
  // episode from a given one: how tests replay Gymnasium's trajectories from the same states.
  virtual std::vector<double> state() const = 0;
  std::vector<float> reset_to(std::span<const double> state);
  // One line of text picturing the state, for `--play`.
  virtual std::string render() const = 0;

 protected:
  Env(std::string name, int64_t observation_size, ActionSpace actions, int64_t max_episode_steps);
  virtual void sample_start(std::mt19937_64& rng) = 0;
  virtual void set_state(std::span<const double> state) = 0;
  // Advances the physics by one validated action; returns the reward and sets `terminated`.
  virtual double advance(std::span<const float> action, bool& terminated) = 0;
  virtual std::vector<float> observe() const = 0;
  // The state's size, checked by reset_to.
  virtual size_t state_size() const = 0;

 private:
  void check_action(std::span<const float> action) const;
  std::string name_;
  int64_t observation_size_;
  ActionSpace action_space_;
  int64_t max_episode_steps_;
  std::mt19937_64 rng_{0};
  int64_t elapsed_ = 0;
  bool running_ = false;
};

// The base of environments whose physical state is N doubles (s_).
template <size_t N>
class FixedStateEnv : public Env {
 public:
  std::vector<double> state() const override { return {s_.begin(), s_.end()}; }

 protected:
  using Env::Env;
  void set_state(std::span<const double> state) override { std::copy(state.begin(), state.end(), s_.begin()); }
  size_t state_size() const override { return N; }
  std::array<double, N> s_{};
};

}  // namespace strata::rl
