// PrioritizedReplayBuffer: a ReplayBuffer sampling transition i with probability p_i^alpha /
// sum_k p_k^alpha, where p_i is its last |TD error| + epsilon (new ones get the largest priority
// seen, so each is replayed at least once soon), with importance weights
// (N P(i))^-beta / max_j (N P(j))^-beta (Schaul et al. 2016, proportional variant).
#pragma once
#include "strata/rl/replay_buffer.hpp"
#include "strata/rl/sum_tree.hpp"

namespace strata::rl {

class PrioritizedReplayBuffer : public ReplayBuffer {
 public:
  PrioritizedReplayBuffer(int64_t capacity, int64_t observation_size, int64_t action_size, double alpha = 0.6,
                          double beta = 0.4, double epsilon = 1e-6);
  int64_t add(std::span<const float> observation, std::span<const float> action, float reward,
              std::span<const float> next_observation, bool terminated) override;
  // Stratified: one draw from each of `batch` equal slices of the total priority.
  Transitions sample(int64_t batch, Generator& gen) const override;
  void update_priorities(const std::vector<int64_t>& indices, std::span<const float> td_errors);
  void set_beta(double beta);  // annealed towards 1 over training
  double priority(int64_t slot) const { return tree_.get(slot); }  // p_i^alpha

 private:
  SumTree tree_;
  double alpha_, beta_, epsilon_, max_priority_ = 1.0;
};

}  // namespace strata::rl
