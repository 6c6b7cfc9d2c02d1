// Gymnasium's Pendulum-v1: a torque in [-2, 2] swings a pendulum up; reward -(theta^2 +
// 0.1 theta_dot^2 + 0.001 u^2) with theta normalised to [-pi, pi), never terminated, truncated at
// 200 steps. State (theta, theta_dot); observation (cos theta, sin theta, theta_dot).
#include <algorithm>
#include <cmath>
#include <numbers>

#include "rl/classic_control.hpp"
#include "rl/text_track.hpp"

namespace strata::rl {
namespace {

constexpr double kMaxSpeed = 8, kMaxTorque = 2.0, kDt = 0.05, kG = 10.0, kM = 1.0, kL = 1.0;
constexpr double kPi = std::numbers::pi;

// ((x + pi) mod 2 pi) - pi with Python's floored modulo (the result takes the divisor's sign).
double angle_normalize(double x) {
  double r = std::fmod(x + kPi, 2 * kPi);
  if (r != 0 && r < 0) r += 2 * kPi;
  return r - kPi;
}

class Pendulum final : public FixedStateEnv<2> {
 public:
  Pendulum()
      : FixedStateEnv("Pendulum-v1", 3, ActionSpace::box({-static_cast<float>(kMaxTorque)}, {static_cast<float>(kMaxTorque)}),
            200) {}

  void sample_start(std::mt19937_64& rng) override {
    s_ = {std::uniform_real_distribution<double>(-kPi, kPi)(rng), std::uniform_real_distribution<double>(-1.0, 1.0)(rng)};
  }

  double advance(std::span<const float> action, bool& terminated) override {
    auto& [theta, theta_dot] = s_;
    // u is float32, as Gymnasium's Box action, and NumPy keeps the terms of u alone in float32.
    const float u = action[0];
    const float u_cost = 0.001f * (u * u), u_accel = static_cast<float>(3.0 / (kM * kL * kL)) * u;
    const double cost = angle_normalize(theta) * angle_normalize(theta) + 0.1 * theta_dot * theta_dot + u_cost;
    const double new_theta_dot =
        std::clamp(theta_dot + (3 * kG / (2 * kL) * std::sin(theta) + u_accel) * kDt, -kMaxSpeed, kMaxSpeed);
    theta += new_theta_dot * kDt;
    theta_dot = new_theta_dot;
    terminated = false;
    return -cost;
  }

  std::vector<float> observe() const override {
    return {static_cast<float>(std::cos(s_[0])), static_cast<float>(std::sin(s_[0])), static_cast<float>(s_[1])};
  }

  std::string render() const override {
    // The tip's horizontal position, and whether it is above (^) or below (v) the pivot.
    return detail::text_track(std::sin(s_[0]), -1, 1, std::cos(s_[0]) > 0 ? '^' : 'v') +
           detail::format(" theta=%+.1f deg (0 is upright) theta_dot=%+.2f", angle_normalize(s_[0]) * 180 / kPi, s_[1]);
  }
};

}  // namespace

std::unique_ptr<Env> make_pendulum() { return std::make_unique<Pendulum>(); }

}  // namespace strata::rl
