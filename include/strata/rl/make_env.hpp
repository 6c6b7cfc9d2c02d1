// Environments by Gymnasium's id: make_env("CartPole-v1"). Unknown ids are a strata::Error that
// lists the known ones.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "strata/rl/env.hpp"

namespace strata::rl {

std::unique_ptr<Env> make_env(const std::string& id);
std::vector<std::string> env_ids();

}  // namespace strata::rl
