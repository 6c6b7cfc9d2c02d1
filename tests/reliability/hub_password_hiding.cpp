// Issue 13.10: with PGPASSWORD='*' and a '*' in the URL, hiding the password in an error message
// looped forever: each "*" replaced by "***" was found again inside its own replacement.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>

#include "../../src/hub/database.hpp"
#include "strata/hub/hub.hpp"

namespace strata::hub {
namespace {

// Runs `body` in a child process; true when it exits 0 within `limit` (it is killed otherwise).
template <class F>
bool finishes_within(std::chrono::seconds limit, F&& body) {
  const pid_t child = ::fork();
  if (child == 0) ::_exit(body() ? 0 : 1);
  const auto deadline = std::chrono::steady_clock::now() + limit;
  int status = 0;
  while (::waitpid(child, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(child, SIGKILL);
      ::waitpid(child, &status, 0);
      ADD_FAILURE() << "still running after " << limit.count() << " s: killed";
      return false;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

TEST(HubPasswordHiding, AStarPasswordIsHiddenWithoutHanging) {
  // No server at that socket: the connection fails and its message, which names the socket
  // path with its '*', goes through the password hiding.
  EXPECT_TRUE(finishes_within(std::chrono::seconds(30), [] {
    ::setenv("PGPASSWORD", "*", 1);
    try {
      Hub::open("postgresql:///strata?host=/nonexistent*dir");
    } catch (const Error& e) {
      const std::string what = e.what();
      return what.find("cannot connect to PostgreSQL") != std::string::npos &&
             what.find("nonexistent***dir") != std::string::npos;
    }
    return false;
  }));
}

TEST(HubPasswordHiding, PasswordsOfStarsAreFoundInUrls) {
  // The URL's own password used to be read back from the redacted URL, which cannot tell a
  // leading '*' of the password from the "***" put in its place.
  EXPECT_EQ(detail::password_in("postgresql://alice:*@host/db"), "*");
  EXPECT_EQ(detail::password_in("postgresql://alice:**x@host/db"), "**x");
  EXPECT_EQ(detail::password_in("postgres://host/db?user=alice&password=*pw&sslmode=disable"), "*pw");
  EXPECT_EQ(detail::redact_url("postgresql://alice:**x@host/db?password=y*"), "postgresql://alice:***@host/db?password=***");
  EXPECT_EQ(detail::password_in("postgresql://alice@host/db"), "");
}

}  // namespace
}  // namespace strata::hub
