// VectorEnv: N copies of one environment stepped together, with Gymnasium's same-step
// autoreset: a copy whose episode ends is reset at once, its row of `observations` is the new
// episode's first observation and `final_observations` keeps the ended episode's last one (to
// bootstrap a truncated episode's value). Copy i is seeded with seed + i, as Gymnasium's vector
// environments do. With threads > 1 the copies are stepped in parallel (each copy's physics is
// independent, so results do not depend on the thread count).
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "strata/core/tensor.hpp"
#include "strata/rl/env.hpp"

namespace strata::rl {

struct VectorStep {
  Tensor observations;        // [N, observation_size] float32, after any autoreset
  Tensor final_observations;  // [N, observation_size]: the ended episodes' last observations (rows of done copies)
  std::vector<float> rewards;
  std::vector<uint8_t> terminated, truncated;
  // The returns and lengths of the episodes that ended on this step (in copy order).
  std::vector<double> finished_returns;
  std::vector<int64_t> finished_lengths;
  bool done(size_t i) const { return terminated[i] || truncated[i]; }
};

class VectorEnv {
 public:
  VectorEnv(const std::string& id, int64_t copies, int threads = 1);
  int64_t size() const { return static_cast<int64_t>(envs_.size()); }
  const Env& env(int64_t i) const { return *envs_.at(i); }
  int64_t observation_size() const { return envs_[0]->observation_size(); }
  const ActionSpace& action_space() const { return envs_[0]->action_space(); }

  Tensor reset(uint64_t seed);  // [N, observation_size]
  // actions: [N] (discrete, any integer or float dtype) or [N, action size] float32.
  VectorStep step(const Tensor& actions);

 private:
  std::vector<std::unique_ptr<Env>> envs_;
  std::vector<double> returns_;
  int threads_;
};

}  // namespace strata::rl
