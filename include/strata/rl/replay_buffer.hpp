// ReplayBuffer: the last `capacity` transitions (s, a, r, s', terminated) of an off-policy agent
// in a ring, sampled uniformly (DQN, DDPG, TD3, SAC). Actions are stored as floats (a discrete
// action is its index).
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "strata/core/factory.hpp"
#include "strata/core/tensor.hpp"

namespace strata::rl {

struct Transitions {
  Tensor observations;       // [B, observation_size]
  Tensor actions;            // [B, action_size] float32
  Tensor rewards;            // [B]
  Tensor next_observations;  // [B, observation_size]
  Tensor terminated;         // [B] 1 where s' is terminal (no bootstrap)
  std::vector<int64_t> indices;  // the slots sampled, for PrioritizedReplayBuffer::update_priorities
  Tensor weights;            // [B] importance-sampling weights (ones for uniform sampling)
};

class ReplayBuffer {
 public:
  ReplayBuffer(int64_t capacity, int64_t observation_size, int64_t action_size);
  virtual ~ReplayBuffer() = default;
  int64_t size() const { return size_; }
  int64_t capacity() const { return capacity_; }
  // Stores one transition, overwriting the oldest when full; returns its slot.
  virtual int64_t add(std::span<const float> observation, std::span<const float> action, float reward,
              std::span<const float> next_observation, bool terminated);
  // `batch` transitions drawn uniformly with replacement; needs a non-empty buffer.
  virtual Transitions sample(int64_t batch, Generator& gen) const;

 protected:
  Transitions gather(const std::vector<int64_t>& slots) const;

 private:
  int64_t capacity_, obs_size_, action_size_;
  int64_t size_ = 0, next_ = 0;
  std::vector<float> obs_, actions_, rewards_, next_obs_, terminated_;
};

}  // namespace strata::rl
