#include "strata/rl/policy_utils.hpp"

#include <cmath>
#include <random>

#include "strata/core/error.hpp"
#include "strata/ops/elementwise.hpp"
#include "strata/ops/loss.hpp"

namespace strata::rl {

int64_t sample_action(std::span<const float> probs, Generator& gen) {
  STRATA_CHECK(!probs.empty(), "sample_action: expected at least one probability");
  double total = 0;
  for (float p : probs) {
    STRATA_CHECK(std::isfinite(p) && p >= 0, "sample_action: probabilities must be finite and >= 0, got ",
                 std::to_string(p));
    total += p;
  }
  STRATA_CHECK(total > 0, "sample_action: the probabilities sum to 0");
  const double u = std::uniform_real_distribution<double>(0, total)(gen.engine());
  double acc = 0;
  for (size_t i = 0; i < probs.size(); ++i) {
    acc += probs[i];
    if (u < acc) return static_cast<int64_t>(i);
  }
  // u landed on the rounding slack at the top: the last action with a non-zero probability.
  for (size_t i = probs.size(); i-- > 0;)
    if (probs[i] > 0) return static_cast<int64_t>(i);
  return 0;
}

Tensor sample_actions(const Tensor& probs, Generator& gen) {
  STRATA_CHECK(probs.dim() == 2, "sample_actions: probs must be [B, K], got ", probs.shape().str());
  const int64_t B = probs.size(0), K = probs.size(1);
  const auto p = probs.contiguous().to(kFloat32).to_vector<float>();
  std::vector<int64_t> actions(B);
  for (int64_t b = 0; b < B; ++b) actions[b] = sample_action(std::span<const float>(p.data() + b * K, K), gen);
  return from_vector(actions, {B});
}

Tensor cross_entropy_reward_loss(const Tensor& logits, const Tensor& actions, const Tensor& rewards) {
  STRATA_CHECK(logits.dim() == 2 && actions.dim() == 1 && rewards.dim() == 1 && actions.size(0) == logits.size(0) &&
                   rewards.size(0) == logits.size(0),
               "cross_entropy_reward_loss: expected logits [B, K], actions [B] and rewards [B], got ",
               logits.shape().str(), ", ", actions.shape().str(), " and ", rewards.shape().str());
  return mul(cross_entropy(logits, actions, Reduction::none), rewards.detach()).sum();
}

}  // namespace strata::rl
