// Policy-gradient pieces of TensorLayer's tl.rein: sampling actions from probabilities and the
// cross-entropy reward loss.
#pragma once
#include <cstdint>
#include <span>

#include "strata/core/factory.hpp"
#include "strata/core/tensor.hpp"

namespace strata::rl {

// One index drawn with probability probs[i] (tl.rein.choice_action_by_probs). The probabilities
// must be finite and non-negative with a positive sum; they are normalised by it.
int64_t sample_action(std::span<const float> probs, Generator& gen);
// One action per row of probs [B, K]: int64 [B].
Tensor sample_actions(const Tensor& probs, Generator& gen);

// sum_b rewards_b * cross_entropy(logits_b, actions_b) (tl.rein.cross_entropy_reward_loss): the
// REINFORCE loss, whose gradient is -sum_b rewards_b grad log pi(actions_b | s_b).
// logits [B, K], actions int64 [B], rewards [B] (returns or advantages, no gradient).
Tensor cross_entropy_reward_loss(const Tensor& logits, const Tensor& actions, const Tensor& rewards);

}  // namespace strata::rl
