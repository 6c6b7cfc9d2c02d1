// Opening a hub: bad paths and URLs give errors that name them, without any password.
#include <gtest/gtest.h>

#include <string>

#include "strata/core/error.hpp"
#include "strata/hub/hub.hpp"

namespace strata::hub {
namespace {

std::string open_error(const std::string& url) {
  try {
    Hub::open(url);
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(HubOpen, PasswordsNeverAppearInErrors) {
  // Port 1 on loopback refuses connections: the error must name the server, not the password.
  for (const std::string url : {"postgresql://alice:s3cr3tPW@127.0.0.1:1/db?connect_timeout=2",
                                "postgres://127.0.0.1:1/db?user=alice&password=s3cr3tPW&connect_timeout=2"}) {
    const std::string msg = open_error(url);
    EXPECT_EQ(msg.find("s3cr3tPW"), std::string::npos) << msg;
    EXPECT_NE(msg.find("***"), std::string::npos) << msg;
    EXPECT_NE(msg.find("127.0.0.1"), std::string::npos) << msg;
  }
}

TEST(HubOpen, BadSqlitePathsAreNamed) {
  const std::string msg = open_error("/nonexistent-dir/sub/strata.db");
  EXPECT_NE(msg.find("/nonexistent-dir/sub/strata.db"), std::string::npos) << msg;
  EXPECT_NE(open_error("").find("empty"), std::string::npos);
}

}  // namespace
}  // namespace strata::hub
