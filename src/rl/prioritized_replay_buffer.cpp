#include "strata/rl/prioritized_replay_buffer.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <string>

#include "strata/core/error.hpp"

namespace strata::rl {

PrioritizedReplayBuffer::PrioritizedReplayBuffer(int64_t capacity, int64_t observation_size, int64_t action_size,
                                                 double alpha, double beta, double epsilon)
    : ReplayBuffer(capacity, observation_size, action_size), tree_(capacity), alpha_(alpha), epsilon_(epsilon) {
  STRATA_CHECK(alpha >= 0 && epsilon > 0, "PrioritizedReplayBuffer: needs alpha >= 0 and epsilon > 0, got ",
               std::to_string(alpha), " and ", std::to_string(epsilon));
  set_beta(beta);
}

void PrioritizedReplayBuffer::set_beta(double beta) {
  STRATA_CHECK(beta >= 0 && beta <= 1, "PrioritizedReplayBuffer: beta must be in [0, 1], got ", std::to_string(beta));
  beta_ = beta;
}

int64_t PrioritizedReplayBuffer::add(std::span<const float> observation, std::span<const float> action, float reward,
                                     std::span<const float> next_observation, bool terminated) {
  const int64_t slot = ReplayBuffer::add(observation, action, reward, next_observation, terminated);
  tree_.set(slot, std::pow(max_priority_, alpha_));
  return slot;
}

Transitions PrioritizedReplayBuffer::sample(int64_t batch, Generator& gen) const {
  STRATA_CHECK(size() > 0 && batch > 0, "PrioritizedReplayBuffer::sample: needs a non-empty buffer and batch > 0, got size ",
               size(), " and batch ", batch);
  const double total = tree_.total(), slice = total / batch;
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<int64_t> slots(batch);
  for (int64_t b = 0; b < batch; ++b)
    slots[b] = tree_.find(std::min((b + u(gen.engine())) * slice, std::nextafter(total, 0.0)));
  Transitions out = gather(slots);
  // w_i = (N P(i))^-beta, scaled by the largest weight in the batch (the rarest sample).
  std::vector<float> w(batch);
  double largest = 0;
  for (int64_t b = 0; b < batch; ++b) {
    const double p = tree_.get(slots[b]) / total;
    w[b] = static_cast<float>(std::pow(size() * p, -beta_));
    largest = std::max(largest, static_cast<double>(w[b]));
  }
  for (float& x : w) x = static_cast<float>(x / largest);
  out.weights = from_vector(w, {batch});
  return out;
}

void PrioritizedReplayBuffer::update_priorities(const std::vector<int64_t>& indices, std::span<const float> td_errors) {
  STRATA_CHECK(indices.size() == td_errors.size(), "update_priorities: ", indices.size(), " indices but ",
               td_errors.size(), " TD errors");
  for (size_t i = 0; i < indices.size(); ++i) {
    STRATA_CHECK(indices[i] >= 0 && indices[i] < size(), "update_priorities: index ", indices[i],
                 " is not a stored transition (size ", size(), ")");
    STRATA_CHECK(std::isfinite(td_errors[i]), "update_priorities: TD error ", i, " is not finite");
    const double p = std::abs(td_errors[i]) + epsilon_;
    max_priority_ = std::max(max_priority_, p);
    tree_.set(indices[i], std::pow(p, alpha_));
  }
}

}  // namespace strata::rl
