// A convolutional actor-critic for Pong-v0's frames (strata/rl/pong.hpp): the observation
// [2, 40, 40] (this frame and the one before) through two strided convolutions and a dense layer
// shared by the policy's logits and the state value. Strata's convolutions are NHWC, so the
// channel-first observation is permuted first.
#pragma once
#include <strata/rl/pong.hpp>

#include "agent_common.hpp"

namespace rl_example {

struct PixelActorCritic : nn::Module {
  nn::Conv2d conv1, conv2;
  nn::Dense hidden, pi, v;
  explicit PixelActorCritic(int64_t actions)
      : conv1(16, {4, 4}, nn::relu, {.stride = {2, 2}}, "conv_1"),   // 40 -> 19
        conv2(32, {3, 3}, nn::relu, {.stride = {2, 2}}, "conv_2"),   // 19 -> 9
        hidden(128, nn::relu, "hidden"),
        pi(actions, {}, "pi_out"),
        v(1, {}, "v_out") {}
  Tensor features(const Tensor& obs) {
    constexpr int64_t side = rl::Pong::kSize;
    const Tensor x = obs.reshape({-1, 2, side, side}).permute({0, 2, 3, 1});
    const Tensor h = conv2(conv1(x));
    return hidden(h.reshape({h.size(0), -1}));
  }
  Tensor actor(const Tensor& obs) { return pi(features(obs)); }
  Tensor forward(const Tensor& obs) override {
    const Tensor h = features(obs);
    return concat({pi(h), v(h)}, 1);
  }
};

}  // namespace rl_example
