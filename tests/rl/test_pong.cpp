// Pong-v0: seeds repeat, the ball bounces off walls and paddles and scores as pong.hpp says (each
// expected value worked out from the rules by hand in the comments), bad actions are errors, and
// the frames show the paddles and the ball where the state puts them.
#include <gtest/gtest.h>

#include <random>

#include "support/expect_error.hpp"
#include "strata/rl/make_env.hpp"
#include "strata/rl/pong.hpp"

namespace strata::rl {
namespace {

using strata::testing::expect_error;

// A state with the previous positions equal to the current ones.
std::vector<double> pong_test_state(double bx, double by, double vx, double vy, double agent_y, double opponent_y,
                                    double agent_score = 0, double opponent_score = 0, double aim = 0) {
  return {bx, by, vx, vy, agent_y, opponent_y, agent_score, opponent_score, bx, by, agent_y, opponent_y, aim};
}

TEST(Pong, SeedsRepeatTheEpisode) {
  auto a = make_env("Pong-v0"), b = make_env("Pong-v0");
  EXPECT_EQ(a->reset(7), b->reset(7));
  EXPECT_NE(a->reset(8), b->reset(7));
  a->reset(7);
  std::mt19937 pick(3);
  double total = 0;
  for (int t = 0; t < 3000; ++t) {
    const int64_t action = static_cast<int64_t>(pick() % 3);
    const Step sa = a->step(action), sb = b->step(action);
    ASSERT_EQ(sa.observation, sb.observation) << "step " << t;
    ASSERT_EQ(sa.reward, sb.reward);
    ASSERT_EQ(a->state(), b->state());
    total += sa.reward;
    if (sa.done()) {
      // Random play loses: 5 points to the opponent first (the score says who ended it).
      EXPECT_TRUE(sa.terminated);
      EXPECT_EQ(std::max(a->state()[Pong::kAgentScore], a->state()[Pong::kOpponentScore]), 5);
      EXPECT_EQ(total, a->state()[Pong::kAgentScore] - a->state()[Pong::kOpponentScore]);
      return;
    }
  }
  FAIL() << "no episode ended in 3000 steps";
}

TEST(Pong, BallBouncesOffWallsAndPaddles) {
  Pong pong;
  // Top wall: y 0.5 - 1.5 = -1 reflects to +1, vy flips; x moves on by vx.
  pong.reset_to(pong_test_state(10, 0.5, 1.5, -1.5, 16, 16));
  pong.step(int64_t{1});
  EXPECT_DOUBLE_EQ(pong.state()[Pong::kBallX], 11.5);
  EXPECT_DOUBLE_EQ(pong.state()[Pong::kBallY], 1.0);
  EXPECT_DOUBLE_EQ(pong.state()[Pong::kBallVy], 1.5);
  // Bottom wall (ball y range [0, 38]): 37.5 + 1 = 38.5 reflects to 37.5.
  pong.reset_to(pong_test_state(10, 37.5, 1.5, 1.0, 16, 16));
  pong.step(int64_t{1});
  EXPECT_DOUBLE_EQ(pong.state()[Pong::kBallY], 37.5);
  EXPECT_DOUBLE_EQ(pong.state()[Pong::kBallVy], -1.0);
  // The agent's paddle (column 38, rows [16, 24)): the ball's left edge crosses the face at x 36
  // (35 -> 36.5) and reflects to 35.5; centre offset (18 + 1) - (16 + 4) = -1 of a half-extent
  // 4 + 1 = 5 gives vy = 1.5 * -1 / 5 = -0.3.
  pong.reset_to(pong_test_state(35, 18, 1.5, 0, 16, 16));
  EXPECT_EQ(pong.step(int64_t{1}).reward, 0);
  EXPECT_DOUBLE_EQ(pong.state()[Pong::kBallX], 35.5);
  EXPECT_DOUBLE_EQ(pong.state()[Pong::kBallVx], -1.5);
  EXPECT_DOUBLE_EQ(pong.state()[Pong::kBallVy], -0.3);
  // The opponent's paddle (column 1, face at x 2): 3 - 1.5 = 1.5 reflects to 2.5. The opponent
  // first moves 1 toward the ball: target 30 + 1 - 4 = 27 from 26. Offset (30 + 1) - (27 + 4) = 0.
  pong.reset_to(pong_test_state(3, 30, -1.5, 0, 0, 26));
  pong.step(int64_t{1});
  EXPECT_DOUBLE_EQ(pong.state()[Pong::kOpponentY], 27);
  EXPECT_DOUBLE_EQ(pong.state()[Pong::kBallX], 2.5);
  EXPECT_DOUBLE_EQ(pong.state()[Pong::kBallVx], 1.5);
  EXPECT_DOUBLE_EQ(pong.state()[Pong::kBallVy], 0);
  // Its hit draws a new aim in [-3, 3].
  EXPECT_LE(std::abs(pong.state()[Pong::kOpponentAim]), Pong::kMaxAim);
}

TEST(Pong, PointsScoreAndEndTheEpisode) {
  Pong pong(PongOptions{.points = 2, .max_steps = 100});
  // The agent's paddle at the top misses a ball at y 30: 37 + 1.5 = 38.5 > 38 is the opponent's point.
  pong.reset_to(pong_test_state(37, 30, 1.5, 0, 0, 16));
  Step s = pong.step(int64_t{1});
  EXPECT_EQ(s.reward, -1);
  EXPECT_FALSE(s.done());
  EXPECT_EQ(pong.state()[Pong::kOpponentScore], 1);
  // The serve: from the centre (19, 19) toward the side that lost the point, the agent's.
  EXPECT_DOUBLE_EQ(pong.state()[Pong::kBallX], 19);
  EXPECT_DOUBLE_EQ(pong.state()[Pong::kBallVx], 1.5);
  EXPECT_LE(std::abs(pong.state()[Pong::kBallVy]), 1.0);
  // The opponent at the top misses a ball at y 30 leaving on the left (1 - 1.5 < 0): the agent's
  // point, which with 1 already is the second and ends the episode.
  pong.reset_to(pong_test_state(1, 30, -1.5, 0, 16, 0, 1, 1));
  s = pong.step(int64_t{1});
  EXPECT_EQ(s.reward, 1);
  EXPECT_TRUE(s.terminated);
  EXPECT_EQ(pong.state()[Pong::kAgentScore], 2);
  expect_error([&] { pong.step(int64_t{1}); }, {"Pong-v0", "after the episode ended"});
  // Truncation at max_steps with the ball in play.
  Pong short_game(PongOptions{.points = 5, .max_steps = 3});
  short_game.reset(1);
  EXPECT_FALSE(short_game.step(int64_t{1}).done());
  EXPECT_FALSE(short_game.step(int64_t{1}).done());
  s = short_game.step(int64_t{1});
  EXPECT_TRUE(s.truncated);
  EXPECT_FALSE(s.terminated);
}

TEST(Pong, PaddlesMoveAtTheirSpeedsWithinTheField) {
  Pong pong;
  pong.reset_to(pong_test_state(20, 2, 1.5, 0, 1, 30));
  pong.step(int64_t{0});  // up by 2 from 1: clamped at 0
  EXPECT_DOUBLE_EQ(pong.state()[Pong::kAgentY], 0);
  EXPECT_DOUBLE_EQ(pong.state()[Pong::kOpponentY], 29);  // toward target 2 + 1 - 4 = -1, at most 1 per step
  pong.step(int64_t{2});
  EXPECT_DOUBLE_EQ(pong.state()[Pong::kAgentY], 2);
  EXPECT_DOUBLE_EQ(pong.state()[Pong::kPrevAgentY], 0);
  // Aiming 2 pixels off: the opponent's target is 20 + 1 - 4 - 2 = 15, reached from 14.5 (not 17).
  pong.reset_to(pong_test_state(20, 20, 1.5, 0, 16, 14.5, 0, 0, 2));
  pong.step(int64_t{1});
  EXPECT_DOUBLE_EQ(pong.state()[Pong::kOpponentY], 15);
}

TEST(Pong, BadActionsAndOptionsAreErrors) {
  auto pong = make_env("Pong-v0");
  pong->reset(1);
  expect_error([&] { pong->step(int64_t{3}); }, {"Pong-v0", "action 3", "Discrete(3)"});
  expect_error([&] { pong->step(int64_t{-1}); }, {"Pong-v0", "Discrete(3)"});
  const std::vector<float> half = {0.5f};
  expect_error([&] { pong->step(half); }, {"Pong-v0", "integer"});
  expect_error([&] { pong->reset_to(std::vector<double>{1, 2}); }, {"13 values, got 2"});
  expect_error([] { Pong(PongOptions{.points = 0}); }, {"points", "got 0"});
  expect_error([] { Pong(PongOptions{.max_steps = 0}); }, {"max_steps"});
  Pong p;
  expect_error([&] { p.rgb_frame(0); }, {"scale"});
}

TEST(Pong, FramesShowThePaddlesAndTheBallWhereTheStateSays) {
  Pong pong;
  // Current: ball (10.4, 5.6) -> pixels (10, 6); agent rows [20, 28); opponent rows [3, 11).
  // Previous: ball (12, 30), agent 0, opponent 32.
  const std::vector<float> obs =
      pong.reset_to(std::vector<double>{10.4, 5.6, -1.5, 0, 20, 3, 0, 0, 12, 30, 0, 32, 0});
  const int64_t n = Pong::kSize;
  ASSERT_EQ(static_cast<int64_t>(obs.size()), 2 * n * n);
  std::vector<float> expected(2 * n * n, 0.f);
  const auto set = [&](int64_t channel, int64_t row, int64_t col) { expected[(channel * n + row) * n + col] = 1; };
  for (int64_t r = 0; r < 8; ++r) {
    set(0, 20 + r, 38), set(0, 3 + r, 1);
    set(1, 0 + r, 38), set(1, 32 + r, 1);
  }
  for (int64_t r = 0; r < 2; ++r)
    for (int64_t c = 0; c < 2; ++c) set(0, 6 + r, 10 + c), set(1, 30 + r, 12 + c);
  EXPECT_EQ(obs, expected);
  // RGB at scale 2: the ball white, the agent's paddle green, the opponent's red, the rest black.
  const Tensor rgb = pong.rgb_frame(2);
  ASSERT_EQ(rgb.shape(), (Shape{80, 80, 3}));
  const std::vector<uint8_t> px = rgb.to_vector<uint8_t>();
  const auto at = [&](int64_t row, int64_t col) {
    const size_t i = static_cast<size_t>((row * 80 + col) * 3);
    return std::vector<int>{px[i], px[i + 1], px[i + 2]};
  };
  EXPECT_EQ(at(12, 20), (std::vector<int>{255, 255, 255}));
  EXPECT_EQ(at(15, 21), (std::vector<int>{255, 255, 255}));
  EXPECT_EQ(at(40, 76), (std::vector<int>{80, 220, 80}));
  EXPECT_EQ(at(55, 77), (std::vector<int>{80, 220, 80}));
  EXPECT_EQ(at(6, 2), (std::vector<int>{220, 80, 80}));
  EXPECT_EQ(at(30, 30), (std::vector<int>{0, 0, 0}));
  EXPECT_EQ(at(56, 76), (std::vector<int>{0, 0, 0}));
}

}  // namespace
}  // namespace strata::rl
