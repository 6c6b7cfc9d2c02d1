#include "strata/rl/replay_buffer.hpp"

#include <algorithm>
#include <random>

#include "strata/core/error.hpp"

namespace strata::rl {

ReplayBuffer::ReplayBuffer(int64_t capacity, int64_t observation_size, int64_t action_size)
    : capacity_(capacity), obs_size_(observation_size), action_size_(action_size) {
  STRATA_CHECK(capacity > 0 && observation_size > 0 && action_size > 0,
               "ReplayBuffer: capacity, observation_size and action_size must be positive, got ", capacity, ", ",
               observation_size, ", ", action_size);
  obs_.resize(capacity * obs_size_);
  next_obs_.resize(capacity * obs_size_);
  actions_.resize(capacity * action_size_);
  rewards_.resize(capacity);
  terminated_.resize(capacity);
}

int64_t ReplayBuffer::add(std::span<const float> observation, std::span<const float> action, float reward,
                          std::span<const float> next_observation, bool terminated) {
  STRATA_CHECK(static_cast<int64_t>(observation.size()) == obs_size_ &&
                   static_cast<int64_t>(next_observation.size()) == obs_size_ &&
                   static_cast<int64_t>(action.size()) == action_size_,
               "ReplayBuffer::add: expected observations of ", obs_size_, " values and actions of ", action_size_,
               ", got ", observation.size(), ", ", next_observation.size(), " and ", action.size());
  const int64_t slot = next_;
  std::copy(observation.begin(), observation.end(), obs_.begin() + slot * obs_size_);
  std::copy(next_observation.begin(), next_observation.end(), next_obs_.begin() + slot * obs_size_);
  std::copy(action.begin(), action.end(), actions_.begin() + slot * action_size_);
  rewards_[slot] = reward;
  terminated_[slot] = terminated ? 1.f : 0.f;
  next_ = (next_ + 1) % capacity_;
  size_ = std::min(size_ + 1, capacity_);
  return slot;
}

Transitions ReplayBuffer::sample(int64_t batch, Generator& gen) const {
  STRATA_CHECK(size_ > 0 && batch > 0, "ReplayBuffer::sample: needs a non-empty buffer and batch > 0, got size ", size_,
               " and batch ", batch);
  std::uniform_int_distribution<int64_t> pick(0, size_ - 1);
  std::vector<int64_t> slots(batch);
  for (auto& s : slots) s = pick(gen.engine());
  Transitions out = gather(slots);
  out.weights = ones({batch});
  return out;
}

Transitions ReplayBuffer::gather(const std::vector<int64_t>& slots) const {
  const int64_t B = static_cast<int64_t>(slots.size());
  Transitions out;
  out.observations = Tensor::empty({B, obs_size_});
  out.next_observations = Tensor::empty({B, obs_size_});
  out.actions = Tensor::empty({B, action_size_});
  out.rewards = Tensor::empty({B});
  out.terminated = Tensor::empty({B});
  float *o = out.observations.data<float>(), *no = out.next_observations.data<float>();
  float *a = out.actions.data<float>(), *r = out.rewards.data<float>(), *t = out.terminated.data<float>();
  for (int64_t b = 0; b < B; ++b) {
    const int64_t s = slots[b];
    std::copy_n(obs_.begin() + s * obs_size_, obs_size_, o + b * obs_size_);
    std::copy_n(next_obs_.begin() + s * obs_size_, obs_size_, no + b * obs_size_);
    std::copy_n(actions_.begin() + s * action_size_, action_size_, a + b * action_size_);
    r[b] = rewards_[s];
    t[b] = terminated_[s];
  }
  out.indices = slots;
  return out;
}

}  // namespace strata::rl
