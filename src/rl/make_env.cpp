#include "strata/rl/make_env.hpp"

#include <functional>
#include <map>

#include "strata/core/error.hpp"
#include "rl/classic_control.hpp"
#include "strata/rl/pong.hpp"

namespace strata::rl {
namespace {
const std::map<std::string, std::function<std::unique_ptr<Env>()>>& factories() {
  static const std::map<std::string, std::function<std::unique_ptr<Env>()>> table = {
      {"CartPole-v1", [] { return make_cartpole(); }},
      {"Acrobot-v1", [] { return make_acrobot(); }},
      {"MountainCar-v0", [] { return make_mountain_car(); }},
      {"Pendulum-v1", [] { return make_pendulum(); }},
      {"Pong-v0", [] { return make_pong(); }},
  };
  return table;
}
}  // namespace

std::vector<std::string> env_ids() {
  std::vector<std::string> ids;
  for (const auto& [id, make] : factories()) ids.push_back(id);
  return ids;
}

std::unique_ptr<Env> make_env(const std::string& id) {
  const auto it = factories().find(id);
  if (it == factories().end()) {
    std::string known;
    for (const auto& name : env_ids()) known += (known.empty() ? "" : ", ") + name;
    throw Error("unknown environment '" + id + "'; known: " + known);
  }
  return it->second();
}

}  // namespace strata::rl
