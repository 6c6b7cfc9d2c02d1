// Pong-v0: a pixel-based Pong-like game. The agent's paddle is on the right, a scripted opponent
// (it follows the ball at a limited speed, so steep shots get past it, and aims each return a
// little off its centre, so that rallies do not settle into a flat loop) on the left; a point is +1
// when the ball leaves on the opponent's side and -1 on the agent's, and the episode terminates
// when either side reaches `points` (truncated after `max_steps`). Actions: 0 up, 1 stay, 2 down.
//
// Observation: two 40x40 greyscale frames in [0, 1], [2, 40, 40] flattened (channel 0 the frame
// after the step, channel 1 the one before), so the ball's direction is visible in one
// observation; a frame is 0 (background) with paddles and the 2x2 ball at 1.
//
// Deterministic from reset(seed): the physics has no randomness; each serve's direction and
// slope, and the opponent's aim, come from a generator seeded at reset. `rgb_frame(scale)` draws the state as an RGB
// image for `--play` and animations.
#pragma once
#include <memory>

#include "strata/core/tensor.hpp"
#include "strata/rl/env.hpp"

namespace strata::rl {

struct PongOptions {
  int64_t points = 5;       // a side reaching this many points ends the episode
  int64_t max_steps = 2000;  // truncation
};

class Pong final : public FixedStateEnv<13> {
 public:
  // Geometry in pixels of the 40x40 frame; positions are the top-left corners.
  static constexpr int64_t kSize = 40, kPaddleHeight = 8, kBall = 2;
  static constexpr int64_t kOpponentColumn = 1, kAgentColumn = kSize - 2;  // paddles are 1 pixel wide
  static constexpr double kAgentSpeed = 2.0, kOpponentSpeed = 1.0;          // pixels per step
  static constexpr double kBallSpeedX = 1.5, kMaxBallSpeedY = 1.5;
  // The state's layout (state(), reset_to).
  enum : size_t { kBallX, kBallY, kBallVx, kBallVy, kAgentY, kOpponentY, kAgentScore, kOpponentScore,
                  kPrevBallX, kPrevBallY, kPrevAgentY, kPrevOpponentY,
                  kOpponentAim };  // pixels the opponent's centre aims off the ball's, in [-kMaxAim, kMaxAim]
  static constexpr double kMaxAim = 3.0;

  explicit Pong(PongOptions options = {});
  // The frame as uint8 RGB [40 scale, 40 scale, 3]: the agent's paddle green, the opponent's red,
  // the ball white, with the score as that many ticks along the top edge.
  Tensor rgb_frame(int64_t scale = 1) const;
  std::string render() const override;

 protected:
  void sample_start(std::mt19937_64& rng) override;
  double advance(std::span<const float> action, bool& terminated) override;
  std::vector<float> observe() const override;

 private:
  void serve(double direction);
  void draw_aim();
  PongOptions options_;
  std::mt19937_64 serve_rng_{0};
};

std::unique_ptr<Pong> make_pong(PongOptions options = {});

}  // namespace strata::rl
