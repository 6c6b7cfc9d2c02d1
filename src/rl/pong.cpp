// Pong-v0 (strata/rl/pong.hpp): the physics in pixel units, one step per frame. The ball moves by
// its velocity, bounces off the top and bottom walls by reflection, and off a paddle when it
// crosses the paddle's face this step while overlapping it; the bounce's slope depends on where
// the ball met the paddle (the centre sends it flat, the ends steep), which is how a player
// beats the slow scripted opponent. The opponent aims each return up to 3 pixels off its
// paddle's centre (a new aim at each serve and each of its hits): a perfect flat return would
// otherwise meet a flat return forever, and a deterministic policy could rally to the time limit.
#include "strata/rl/pong.hpp"

#include <algorithm>
#include <cmath>

#include "strata/core/error.hpp"
#include "strata/core/factory.hpp"
#include "rl/text_track.hpp"

namespace strata::rl {
namespace {

constexpr double kTop = 0, kBottom = Pong::kSize - Pong::kBall;              // the ball's y range
constexpr double kPaddleBottom = Pong::kSize - Pong::kPaddleHeight;          // a paddle's y range [0, this]
constexpr double kAgentFace = Pong::kAgentColumn - Pong::kBall;              // ball x touching the agent's paddle
constexpr double kOpponentFace = Pong::kOpponentColumn + 1;                  // ball x touching the opponent's

bool overlaps(double paddle_y, double ball_y) {
  return ball_y + Pong::kBall > paddle_y && ball_y < paddle_y + Pong::kPaddleHeight;
}

// The slope after a bounce: kMaxBallSpeedY at the paddle's ends, 0 at its centre.
double bounce_slope(double paddle_y, double ball_y) {
  const double offset = (ball_y + Pong::kBall / 2.0) - (paddle_y + Pong::kPaddleHeight / 2.0);
  return Pong::kMaxBallSpeedY * offset / (Pong::kPaddleHeight / 2.0 + Pong::kBall / 2.0);
}

int64_t pixel(double v, int64_t extent) {
  return std::clamp<int64_t>(std::lround(v), 0, Pong::kSize - extent);
}

// Paddles and ball at the given positions, 1 on 0, into a 40x40 frame.
void draw_frame(float* frame, double ball_x, double ball_y, double agent_y, double opponent_y) {
  std::fill(frame, frame + Pong::kSize * Pong::kSize, 0.0f);
  for (int64_t r = 0; r < Pong::kPaddleHeight; ++r) {
    frame[(pixel(agent_y, Pong::kPaddleHeight) + r) * Pong::kSize + Pong::kAgentColumn] = 1;
    frame[(pixel(opponent_y, Pong::kPaddleHeight) + r) * Pong::kSize + Pong::kOpponentColumn] = 1;
  }
  const int64_t bx = pixel(ball_x, Pong::kBall), by = pixel(ball_y, Pong::kBall);
  for (int64_t r = 0; r < Pong::kBall; ++r)
    for (int64_t c = 0; c < Pong::kBall; ++c) frame[(by + r) * Pong::kSize + bx + c] = 1;
}

}  // namespace

Pong::Pong(PongOptions options)
    : FixedStateEnv("Pong-v0", 2 * kSize * kSize, ActionSpace::discrete_n(3), options.max_steps), options_(options) {
  STRATA_CHECK(options.points >= 1 && options.points <= 1000, "Pong: points must be in [1, 1000], got ", options.points);
  STRATA_CHECK(options.max_steps >= 1, "Pong: max_steps must be >= 1, got ", options.max_steps);
}

void Pong::draw_aim() { s_[kOpponentAim] = std::uniform_real_distribution<double>(-kMaxAim, kMaxAim)(serve_rng_); }

void Pong::serve(double direction) {
  std::uniform_real_distribution<double> slope(-kMaxBallSpeedY * 2 / 3, kMaxBallSpeedY * 2 / 3);
  s_[kBallX] = s_[kBallY] = (kSize - kBall) / 2.0;
  s_[kBallVx] = direction * kBallSpeedX;
  s_[kBallVy] = slope(serve_rng_);
  draw_aim();
}

void Pong::sample_start(std::mt19937_64& rng) {
  serve_rng_.seed(rng());
  s_.fill(0);
  // Paddles at whole-pixel heights; the previous frame shows the ball one step back, so the
  // first observation already says where the serve goes.
  std::uniform_int_distribution<int64_t> height(0, static_cast<int64_t>(kPaddleBottom));
  s_[kAgentY] = static_cast<double>(height(serve_rng_));
  s_[kOpponentY] = static_cast<double>(height(serve_rng_));
  serve(std::bernoulli_distribution(0.5)(serve_rng_) ? 1.0 : -1.0);
  s_[kPrevBallX] = s_[kBallX] - s_[kBallVx];
  s_[kPrevBallY] = s_[kBallY] - s_[kBallVy];
  s_[kPrevAgentY] = s_[kAgentY];
  s_[kPrevOpponentY] = s_[kOpponentY];
}

double Pong::advance(std::span<const float> action, bool& terminated) {
  s_[kPrevBallX] = s_[kBallX];
  s_[kPrevBallY] = s_[kBallY];
  s_[kPrevAgentY] = s_[kAgentY];
  s_[kPrevOpponentY] = s_[kOpponentY];
  // Paddles: the agent's by its action, the opponent's toward the ball's centre at its limited speed.
  s_[kAgentY] = std::clamp(s_[kAgentY] + (action[0] - 1) * kAgentSpeed, 0.0, kPaddleBottom);
  const double target = s_[kBallY] + kBall / 2.0 - kPaddleHeight / 2.0 - s_[kOpponentAim];
  s_[kOpponentY] = std::clamp(s_[kOpponentY] + std::clamp(target - s_[kOpponentY], -kOpponentSpeed, kOpponentSpeed),
                              0.0, kPaddleBottom);
  // The ball, with reflections off the walls and the paddles' faces.
  const double x0 = s_[kBallX];
  double& x = s_[kBallX];
  double& y = s_[kBallY];
  x += s_[kBallVx];
  y += s_[kBallVy];
  if (y < kTop) {
    y = 2 * kTop - y;
    s_[kBallVy] = -s_[kBallVy];
  } else if (y > kBottom) {
    y = 2 * kBottom - y;
    s_[kBallVy] = -s_[kBallVy];
  }
  if (s_[kBallVx] > 0 && x0 <= kAgentFace && x > kAgentFace && overlaps(s_[kAgentY], y)) {
    x = 2 * kAgentFace - x;
    s_[kBallVx] = -s_[kBallVx];
    s_[kBallVy] = bounce_slope(s_[kAgentY], y);
  } else if (s_[kBallVx] < 0 && x0 >= kOpponentFace && x < kOpponentFace && overlaps(s_[kOpponentY], y)) {
    x = 2 * kOpponentFace - x;
    s_[kBallVx] = -s_[kBallVx];
    s_[kBallVy] = bounce_slope(s_[kOpponentY], y);
    draw_aim();
  }
  // A point when the ball leaves the field; the next serve goes toward the side that lost it.
  double reward = 0;
  if (x > kSize - kBall) {
    reward = -1;
    s_[kOpponentScore] += 1;
  } else if (x < 0) {
    reward = 1;
    s_[kAgentScore] += 1;
  }
  if (reward != 0) {
    terminated = s_[kAgentScore] >= options_.points || s_[kOpponentScore] >= options_.points;
    serve(-reward);
  }
  return reward;
}

std::vector<float> Pong::observe() const {
  std::vector<float> obs(2 * kSize * kSize);
  draw_frame(obs.data(), s_[kBallX], s_[kBallY], s_[kAgentY], s_[kOpponentY]);
  draw_frame(obs.data() + kSize * kSize, s_[kPrevBallX], s_[kPrevBallY], s_[kPrevAgentY], s_[kPrevOpponentY]);
  return obs;
}

Tensor Pong::rgb_frame(int64_t scale) const {
  STRATA_CHECK(scale >= 1 && scale <= 32, "Pong::rgb_frame: scale must be in [1, 32], got ", scale);
  std::vector<float> frame(kSize * kSize);
  draw_frame(frame.data(), s_[kBallX], s_[kBallY], s_[kAgentY], s_[kOpponentY]);
  const int64_t side = kSize * scale;
  std::vector<uint8_t> rgb(side * side * 3, 0);
  const auto paint = [&](int64_t r, int64_t c, uint8_t red, uint8_t green, uint8_t blue) {
    for (int64_t i = 0; i < scale; ++i)
      for (int64_t j = 0; j < scale; ++j) {
        uint8_t* p = &rgb[((r * scale + i) * side + c * scale + j) * 3];
        p[0] = red, p[1] = green, p[2] = blue;
      }
  };
  // The score as ticks along the top row: the opponent's from the left, the agent's from the right.
  for (int64_t k = 0; k < static_cast<int64_t>(s_[kOpponentScore]) && 2 * k < kSize / 2; ++k) paint(0, 4 + 2 * k, 120, 40, 40);
  for (int64_t k = 0; k < static_cast<int64_t>(s_[kAgentScore]) && 2 * k < kSize / 2; ++k)
    paint(0, kSize - 5 - 2 * k, 40, 120, 40);
  for (int64_t r = 0; r < kSize; ++r)
    for (int64_t c = 0; c < kSize; ++c) {
      if (frame[r * kSize + c] == 0) continue;
      if (c == kAgentColumn) paint(r, c, 80, 220, 80);
      else if (c == kOpponentColumn) paint(r, c, 220, 80, 80);
      else paint(r, c, 255, 255, 255);
    }
  return from_vector(rgb, {side, side, 3});
}

std::string Pong::render() const {
  return detail::text_track(s_[kBallX], 0, kSize - kBall, 'o') +
         detail::format(" ball y=%4.1f  agent y=%4.1f  opponent y=%4.1f  score %d:%d", s_[kBallY], s_[kAgentY],
                        s_[kOpponentY], static_cast<int>(s_[kAgentScore]), static_cast<int>(s_[kOpponentScore]));
}

std::unique_ptr<Pong> make_pong(PongOptions options) { return std::make_unique<Pong>(options); }

}  // namespace strata::rl
