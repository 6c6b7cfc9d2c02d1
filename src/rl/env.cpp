#include "strata/rl/env.hpp"

#include <cmath>
#include <utility>

#include "strata/core/error.hpp"

namespace strata::rl {

Env::Env(std::string name, int64_t observation_size, ActionSpace actions, int64_t max_episode_steps)
    : name_(std::move(name)),
      observation_size_(observation_size),
      action_space_(std::move(actions)),
      max_episode_steps_(max_episode_steps) {}

std::vector<float> Env::reset(uint64_t seed) {
  rng_.seed(seed);
  return reset();
}

std::vector<float> Env::reset() {
  sample_start(rng_);
  elapsed_ = 0;
  running_ = true;
  return observe();
}

std::vector<float> Env::reset_to(std::span<const double> state) {
  STRATA_CHECK(state.size() == state_size(), name_, ": reset_to expects a state of ", state_size(),
               " values, got ", state.size());
  for (double v : state) STRATA_CHECK(std::isfinite(v), name_, ": reset_to got a non-finite state value");
  set_state(state);
  elapsed_ = 0;
  running_ = true;
  return observe();
}

void Env::check_action(std::span<const float> action) const {
  const ActionSpace& space = action_space_;
  STRATA_CHECK(static_cast<int64_t>(action.size()) == space.size(), name_, ": an action has ", space.size(),
               " value(s), got ", action.size());
  if (space.discrete()) {
    const float a = action[0];
    STRATA_CHECK(std::isfinite(a) && a == std::floor(a) && a >= 0 && a < static_cast<float>(space.n), name_,
                 ": action ", std::to_string(a), " is outside Discrete(", space.n, "): expected an integer in [0, ",
                 space.n, ")");
    return;
  }
  for (size_t i = 0; i < action.size(); ++i)
    STRATA_CHECK(std::isfinite(action[i]) && action[i] >= space.low[i] && action[i] <= space.high[i], name_,
                 ": action[", i, "] = ", std::to_string(action[i]), " is outside the box [",
                 std::to_string(space.low[i]), ", ", std::to_string(space.high[i]), "]");
}

Step Env::step(std::span<const float> action) {
  STRATA_CHECK(running_, name_, ": step called ", elapsed_ == 0 ? "before reset" : "after the episode ended",
               "; call reset first");
  check_action(action);
  Step out;
  out.reward = advance(action, out.terminated);
  ++elapsed_;
  out.truncated = elapsed_ >= max_episode_steps_;  // TimeLimit: both flags may be set at once
  out.observation = observe();
  running_ = !out.done();
  return out;
}

Step Env::step(int64_t discrete_action) {
  STRATA_CHECK(action_space_.discrete(), name_, ": step(int) needs a discrete action space; this one is a box of ",
               action_space_.size(), " value(s)");
  STRATA_CHECK(discrete_action >= 0 && discrete_action < action_space_.n, name_, ": action ", discrete_action,
               " is outside Discrete(", action_space_.n, "): expected an integer in [0, ", action_space_.n, ")");
  const float a = static_cast<float>(discrete_action);
  return step(std::span<const float>(&a, 1));
}

}  // namespace strata::rl
