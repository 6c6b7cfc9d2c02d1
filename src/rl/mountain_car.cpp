// Gymnasium's MountainCar-v0: push left (0), not at all (1) or right (2) to drive an underpowered
// car up the right hill; -1 per step, terminated at position >= 0.5, truncated at 200 steps.
// State and observation (position, velocity).
#include <algorithm>
#include <cmath>

#include "rl/classic_control.hpp"
#include "rl/text_track.hpp"

namespace strata::rl {
namespace {

constexpr double kMinPosition = -1.2, kMaxPosition = 0.6, kMaxSpeed = 0.07, kGoal = 0.5;
constexpr double kForce = 0.001, kGravity = 0.0025;

class MountainCar final : public FixedStateEnv<2> {
 public:
  MountainCar() : FixedStateEnv("MountainCar-v0", 2, ActionSpace::discrete_n(3), 200) {}

  void sample_start(std::mt19937_64& rng) override {
    s_ = {std::uniform_real_distribution<double>(-0.6, -0.4)(rng), 0.0};
  }

  double advance(std::span<const float> action, bool& terminated) override {
    auto& [position, velocity] = s_;
    velocity += (action[0] - 1) * kForce + std::cos(3 * position) * -kGravity;
    velocity = std::clamp(velocity, -kMaxSpeed, kMaxSpeed);
    position = std::clamp(position + velocity, kMinPosition, kMaxPosition);
    if (position == kMinPosition && velocity < 0) velocity = 0;  // the left wall stops the car
    terminated = position >= kGoal && velocity >= 0;
    return -1.0;
  }

  std::vector<float> observe() const override { return {static_cast<float>(s_[0]), static_cast<float>(s_[1])}; }

  std::string render() const override {
    return detail::text_track(s_[0], kMinPosition, kMaxPosition, 'o') +
           detail::format(" position=%+.3f velocity=%+.4f (goal 0.5)", s_[0], s_[1]);
  }
};

}  // namespace

std::unique_ptr<Env> make_mountain_car() { return std::make_unique<MountainCar>(); }

}  // namespace strata::rl
