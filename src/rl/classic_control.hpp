// Gymnasium's classic-control tasks, one file each; users reach them through make_env (by id).
#pragma once
#include <memory>

#include "strata/rl/env.hpp"

namespace strata::rl {

std::unique_ptr<Env> make_cartpole();
std::unique_ptr<Env> make_acrobot();
std::unique_ptr<Env> make_mountain_car();
std::unique_ptr<Env> make_pendulum();

}  // namespace strata::rl
