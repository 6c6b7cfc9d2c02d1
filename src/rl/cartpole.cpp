// Gymnasium's CartPole-v1: push a cart left (0) or right (1) to keep its pole upright; +1 per step,
// terminated when the pole leans past 12 degrees or the cart leaves [-2.4, 2.4], truncated at 500
// steps. State (x, x_dot, theta, theta_dot), explicit Euler with tau = 0.02 s; observation = state.
#include <cmath>
#include <numbers>

#include "rl/classic_control.hpp"
#include "rl/text_track.hpp"

namespace strata::rl {
namespace {

constexpr double kGravity = 9.8, kMassCart = 1.0, kMassPole = 0.1, kTotalMass = kMassCart + kMassPole;
constexpr double kHalfLength = 0.5, kPoleMassLength = kMassPole * kHalfLength, kForce = 10.0, kTau = 0.02;
constexpr double kThetaLimit = 12 * 2 * std::numbers::pi / 360, kXLimit = 2.4;

class CartPole final : public FixedStateEnv<4> {
 public:
  CartPole() : FixedStateEnv("CartPole-v1", 4, ActionSpace::discrete_n(2), 500) {}

  void sample_start(std::mt19937_64& rng) override {
    std::uniform_real_distribution<double> u(-0.05, 0.05);
    for (double& v : s_) v = u(rng);
  }

  double advance(std::span<const float> action, bool& terminated) override {
    auto& [x, x_dot, theta, theta_dot] = s_;
    // Gymnasium's order of operations, so the doubles round alike and long episodes stay identical.
    const double force = action[0] == 1 ? kForce : -kForce;
    const double cos_t = std::cos(theta), sin_t = std::sin(theta);
    const double temp = (force + kPoleMassLength * (theta_dot * theta_dot) * sin_t) / kTotalMass;
    const double theta_acc =
        (kGravity * sin_t - cos_t * temp) / (kHalfLength * (4.0 / 3.0 - kMassPole * (cos_t * cos_t) / kTotalMass));
    const double x_acc = temp - kPoleMassLength * theta_acc * cos_t / kTotalMass;
    // Explicit Euler, as Gymnasium's default integrator: positions move with the old velocities.
    x += kTau * x_dot;
    x_dot += kTau * x_acc;
    theta += kTau * theta_dot;
    theta_dot += kTau * theta_acc;
    terminated = x < -kXLimit || x > kXLimit || theta < -kThetaLimit || theta > kThetaLimit;
    return 1.0;
  }

  std::vector<float> observe() const override {
    return {static_cast<float>(s_[0]), static_cast<float>(s_[1]), static_cast<float>(s_[2]), static_cast<float>(s_[3])};
  }

  std::string render() const override {
    // The pole's lean as a slash, backslash or bar on the cart.
    const char pole = s_[2] > 0.03 ? '/' : s_[2] < -0.03 ? '\\' : 'I';
    return detail::text_track(s_[0], -kXLimit, kXLimit, pole) +
           detail::format(" x=%+.3f theta=%+.1f deg", s_[0], s_[2] * 180 / std::numbers::pi);
  }
};

}  // namespace

std::unique_ptr<Env> make_cartpole() { return std::make_unique<CartPole>(); }

}  // namespace strata::rl
