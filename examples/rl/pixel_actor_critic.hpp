// A convolutional actor-critic for Pong-v0's frames (strata/rl/pong.hpp): the observation
// [2, 40, 40] (this frame and the one before) through two strided convolutions and a dense layer
// shared by the policy's logits and the state value, concatenated as [logits..., value]. A static
// model, so the hub keeps it whole and `strata serve` serves the saved policy. Strata's
// convolutions are NHWC, so the channel-first observation is transposed first.
#pragma once
#include <utility>

#include <strata/rl/pong.hpp>

#include "agent_common.hpp"

namespace rl_example {

class PixelActorCritic : public nn::Model {
 public:
  explicit PixelActorCritic(int64_t actions) : PixelActorCritic(actions, graph(actions)) {}
  // The policy's logits [batch, actions] of flat observations [batch, 2 * 40 * 40].
  Tensor actor(const Tensor& obs) { return (*this)(obs).narrow(1, 0, actions_); }

 private:
  PixelActorCritic(int64_t actions, const std::pair<nn::Symbol, nn::Symbol>& io)
      : nn::Model(io.first, io.second, "pong_actor_critic"), actions_(actions) {}
  static std::pair<nn::Symbol, nn::Symbol> graph(int64_t actions) {
    constexpr int64_t side = rl::Pong::kSize;
    const nn::Symbol obs = nn::Input({-1, 2 * side * side});
    nn::Symbol h = nn::Transpose({0, 2, 3, 1}, "to_nhwc")(nn::Reshape({2, side, side}, "frames")(obs));
    h = nn::Conv2d(16, {4, 4}, nn::relu, {.stride = {2, 2}}, "conv_1")(h);  // 40 -> 19
    h = nn::Conv2d(32, {3, 3}, nn::relu, {.stride = {2, 2}}, "conv_2")(h);  // 19 -> 9
    h = nn::Dense(128, nn::relu, "hidden")(nn::Flatten("flatten")(h));
    const nn::Symbol out =
        nn::Concat(1, "logits_and_value")({nn::Dense(actions, {}, "pi_out")(h), nn::Dense(1, {}, "v_out")(h)});
    return {obs, out};
  }
  int64_t actions_;
};

}  // namespace rl_example
