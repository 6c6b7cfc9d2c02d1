// `strata worker --lease-seconds 2.5` (and even 2.0) was refused: "Value 2.0 not in range 1 to
// 2147483647", an integer range checking a number of seconds (found by scripts/soak-workers).
#include <gtest/gtest.h>

#include "temp_hub.hpp"

namespace strata::reliability {
namespace {

using WorkerFlags = TempHub;

TEST_F(WorkerFlags, AFractionalLeaseIsTakenAndABelowOneIsRefusedByName) {
  const CliResult fractional = strata("worker --lease-seconds 2.5 --exit-when-idle");
  EXPECT_EQ(fractional.status, 0) << fractional.err;
  const CliResult too_short = strata("worker --lease-seconds 0.5 --exit-when-idle");
  EXPECT_EQ(too_short.status, 1);
  EXPECT_NE(too_short.err.find("--lease-seconds"), std::string::npos) << too_short.err;
}

}  // namespace
}  // namespace strata::reliability
