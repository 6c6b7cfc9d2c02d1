// Strata's environments replay Gymnasium's episodes (tests/rl/fixtures, written by the pinned
// generator beside them): from the same start state with the same actions, every observation,
// reward and terminated/truncated flag agrees.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "strata/rl/make_env.hpp"

namespace strata::rl {
namespace {

using json = nlohmann::json;

const json& fixture() {
  static const json episodes = [] {
    std::ifstream in(std::string(STRATA_TESTS_DIR) + "/rl/fixtures/gymnasium_trajectories.json");
    return json::parse(in).at("episodes");
  }();
  return episodes;
}

// float32 observations: Strata and NumPy round the same double-precision physics, so they
// agree to a few float32 ulps (libm's and NumPy's sin/cos may differ in the last bit).
void expect_near(const std::vector<float>& got, const json& want, const std::string& where) {
  ASSERT_EQ(got.size(), want.size()) << where;
  for (size_t i = 0; i < got.size(); ++i) {
    const double w = want[i].get<double>();
    EXPECT_NEAR(got[i], w, 1e-5 + 1e-5 * std::abs(w)) << where << " [" << i << "]";
  }
}

void replay(const std::string& id) {
  int episodes = 0;
  for (const json& e : fixture()) {
    if (e.at("env") != id) continue;
    ++episodes;
    auto env = make_env(id);
    const auto start = e.at("start_state").get<std::vector<double>>();
    const std::string name = id + " seed " + std::to_string(e.at("seed").get<int>());
    expect_near(env->reset_to(start), e.at("reset_observation"), name + " reset");
    int t = 0;
    for (const json& s : e.at("steps")) {
      const auto action = s.at("action").get<std::vector<float>>();
      const Step got = env->step(action);
      const std::string where = name + " step " + std::to_string(++t);
      expect_near(got.observation, s.at("observation"), where);
      EXPECT_NEAR(got.reward, s.at("reward").get<double>(), 1e-6) << where;
      ASSERT_EQ(got.terminated, s.at("terminated").get<bool>()) << where;
      ASSERT_EQ(got.truncated, s.at("truncated").get<bool>()) << where;
    }
  }
  EXPECT_GE(episodes, 2) << "the fixture has too few " << id << " episodes";
}

TEST(EnvsVsGymnasium, CartPole) { replay("CartPole-v1"); }
TEST(EnvsVsGymnasium, Acrobot) { replay("Acrobot-v1"); }
TEST(EnvsVsGymnasium, MountainCar) { replay("MountainCar-v0"); }
TEST(EnvsVsGymnasium, Pendulum) { replay("Pendulum-v1"); }

}  // namespace
}  // namespace strata::rl
