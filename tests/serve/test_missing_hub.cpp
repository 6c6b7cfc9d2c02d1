// `strata serve` and `strata ui` only read a hub: given a path that holds none (a typo), they
// refuse to start, naming it, and leave nothing there. Hub::open would create an empty SQLite
// hub, and the dashboard showed it, empty, without a word.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "support/temp_dir.hpp"
#include "serve/command_output.hpp"

namespace strata::testing {
namespace {

class MissingHubTest : public TempDirTest {};

TEST_F(MissingHubTest, ServeAndUiRefuseAPathWithoutAHubAndCreateNothing) {
  const std::string hub = path("typo.db");
  const std::string cli = std::string(STRATA_CLI_PATH);
  for (const std::string& command : {cli + " serve --hub '" + hub + "' --model mlp --port 0",
                                     cli + " ui --hub '" + hub + "' --port 0",
                                     cli + " ui --hub 'sqlite://" + hub + "' --port 0"}) {
    SCOPED_TRACE(command);
    const std::string said = command_output("timeout 10 " + command + " 2>&1; echo exit=$?");
    EXPECT_NE(said.find("no hub at '" + hub + "'"), std::string::npos) << said;
    EXPECT_EQ(said.find("listening"), std::string::npos) << said;
    EXPECT_NE(said.find("exit=1"), std::string::npos) << said;
    EXPECT_FALSE(std::filesystem::exists(hub));
    EXPECT_FALSE(std::filesystem::exists(hub + "-blobs"));
  }
}

}  // namespace
}  // namespace strata::testing
