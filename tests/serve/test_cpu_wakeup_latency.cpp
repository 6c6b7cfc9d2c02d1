// CpuWakeupLatency and `strata serve --cpu-wakeup-latency-us`: the kernel's PM QoS target (read
// back from /dev/cpu_dma_latency, where reading gives the value in force) is at most the request
// while it is held and what it was once it is released, by the destructor or by the server's exit.
#include <fcntl.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <stdexcept>

#include "serve/serve_fixture.hpp"
#include "strata/serve/cpu_wakeup_latency.hpp"

namespace strata::testing {
namespace {

using CpuWakeupLatencyTest = ServeTest;
constexpr const char* kDevice = "/dev/cpu_dma_latency";

// The target in force, or nothing when this process may not open the device.
std::optional<int32_t> kernel_target() {
  const int fd = ::open(kDevice, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  int32_t value = -1;
  const bool read_whole = ::read(fd, &value, sizeof value) == static_cast<ssize_t>(sizeof value);
  ::close(fd);
  if (!read_whole) return std::nullopt;
  return value;
}

TEST_F(CpuWakeupLatencyTest, TheKernelsTargetHoldsOnlyWhileTheRequestOrTheServerLives) {
  const auto before = kernel_target();
  if (!before) GTEST_SKIP() << kDevice << " cannot be read here (it needs root)";
  if (*before <= 7) GTEST_SKIP() << "another process holds a target of " << *before << " us: ours cannot be told apart";
  {
    serve::CpuWakeupLatency request(7);
    ASSERT_TRUE(request.held()) << request.why_not();
    EXPECT_LE(kernel_target().value(), 7);
  }
  EXPECT_EQ(kernel_target().value(), *before);

  auto& server = start({"--model", "mlp", "--cpu-wakeup-latency-us", "5"});
  EXPECT_LE(kernel_target().value(), 5);
  server.signal(SIGTERM);
  EXPECT_EQ(server.wait(), 0);
  EXPECT_EQ(kernel_target().value(), *before);
}

TEST(CpuWakeupLatency, ARequestThatCannotBeHeldSaysWhyAndANegativeOneIsRefused) {
  serve::CpuWakeupLatency missing(0, "/nonexistent/cpu_dma_latency");
  EXPECT_FALSE(missing.held());
  EXPECT_NE(missing.why_not().find("/nonexistent/cpu_dma_latency"), std::string::npos) << missing.why_not();
  EXPECT_THROW(serve::CpuWakeupLatency(-1), std::invalid_argument);
}

}  // namespace
}  // namespace strata::testing
