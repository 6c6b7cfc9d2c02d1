// Gymnasium's Acrobot-v1: torque -1, 0 or +1 (actions 0, 1, 2) on the joint of a two-link pendulum
// to swing its tip above the bar; -1 per step (0 on the terminal step), terminated when
// -cos(t1) - cos(t1 + t2) > 1, truncated at 500 steps. State (theta1, theta2, dtheta1, dtheta2),
// the book's dynamics with one RK4 step of 0.2 s; observation (cos t1, sin t1, cos t2, sin t2, dt1, dt2).
#include <algorithm>
#include <cmath>
#include <numbers>

#include "rl/classic_control.hpp"
#include "rl/text_track.hpp"

namespace strata::rl {
namespace {

constexpr double kPi = std::numbers::pi, kDt = 0.2;
constexpr double kM1 = 1.0, kM2 = 1.0, kL1 = 1.0, kLc1 = 0.5, kLc2 = 0.5, kI1 = 1.0, kI2 = 1.0, kG = 9.8;
constexpr double kMaxVel1 = 4 * kPi, kMaxVel2 = 9 * kPi;
constexpr double kTorque[3] = {-1.0, 0.0, 1.0};

using State = std::array<double, 4>;

// The equations of motion of Sutton and Barto's book ("book", Gymnasium's default).
State derivatives(const State& s, double torque) {
  const auto [t1, t2, dt1, dt2] = s;
  const double d1 = kM1 * kLc1 * kLc1 + kM2 * (kL1 * kL1 + kLc2 * kLc2 + 2 * kL1 * kLc2 * std::cos(t2)) + kI1 + kI2;
  const double d2 = kM2 * (kLc2 * kLc2 + kL1 * kLc2 * std::cos(t2)) + kI2;
  const double phi2 = kM2 * kLc2 * kG * std::cos(t1 + t2 - kPi / 2.0);
  const double phi1 = -kM2 * kL1 * kLc2 * dt2 * dt2 * std::sin(t2) - 2 * kM2 * kL1 * kLc2 * dt2 * dt1 * std::sin(t2) +
                      (kM1 * kLc1 + kM2 * kL1) * kG * std::cos(t1 - kPi / 2) + phi2;
  const double ddt2 = (torque + d2 / d1 * phi1 - kM2 * kL1 * kLc2 * dt1 * dt1 * std::sin(t2) - phi2) /
                      (kM2 * kLc2 * kLc2 + kI2 - d2 * d2 / d1);
  const double ddt1 = -(d2 * ddt2 + phi1) / d1;
  return {dt1, dt2, ddt1, ddt2};
}

State axpy(const State& y, double a, const State& k) {
  return {y[0] + a * k[0], y[1] + a * k[1], y[2] + a * k[2], y[3] + a * k[3]};
}

// Gymnasium's wrap: shifts by whole turns until x is inside [lo, hi].
double wrap(double x, double lo, double hi) {
  while (x > hi) x -= hi - lo;
  while (x < lo) x += hi - lo;
  return x;
}

class Acrobot final : public FixedStateEnv<4> {
 public:
  Acrobot() : FixedStateEnv("Acrobot-v1", 6, ActionSpace::discrete_n(3), 500) {}

  void sample_start(std::mt19937_64& rng) override {
    std::uniform_real_distribution<double> u(-0.1, 0.1);
    for (double& v : s_) v = static_cast<float>(u(rng));  // Gymnasium keeps the start state in float32
  }

  double advance(std::span<const float> action, bool& terminated) override {
    const double torque = kTorque[static_cast<int>(action[0])];
    // One classical Runge-Kutta step over [0, dt].
    const State k1 = derivatives(s_, torque);
    const State k2 = derivatives(axpy(s_, kDt / 2, k1), torque);
    const State k3 = derivatives(axpy(s_, kDt / 2, k2), torque);
    const State k4 = derivatives(axpy(s_, kDt, k3), torque);
    State next;
    for (int i = 0; i < 4; ++i) next[i] = s_[i] + kDt / 6.0 * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]);
    s_ = {wrap(next[0], -kPi, kPi), wrap(next[1], -kPi, kPi), std::clamp(next[2], -kMaxVel1, kMaxVel1),
          std::clamp(next[3], -kMaxVel2, kMaxVel2)};
    terminated = -std::cos(s_[0]) - std::cos(s_[1] + s_[0]) > 1.0;
    return terminated ? 0.0 : -1.0;
  }

  std::vector<float> observe() const override {
    return {static_cast<float>(std::cos(s_[0])), static_cast<float>(std::sin(s_[0])), static_cast<float>(std::cos(s_[1])),
            static_cast<float>(std::sin(s_[1])), static_cast<float>(s_[2]),          static_cast<float>(s_[3])};
  }

  std::string render() const override {
    // The tip's height (-2 hanging down, +2 straight up; the goal is above +1).
    const double height = -std::cos(s_[0]) - std::cos(s_[1] + s_[0]);
    return detail::text_track(height, -2, 2, '*') + detail::format(" tip height=%+.2f (goal > +1)", height);
  }
};

}  // namespace

std::unique_ptr<Env> make_acrobot() { return std::make_unique<Acrobot>(); }

}  // namespace strata::rl
