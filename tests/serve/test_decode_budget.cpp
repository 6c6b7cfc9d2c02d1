// The server's budget of JSON bytes decoded at once (strata/serve/decode_budget.hpp): the
// budget itself, and a server's peak memory under concurrent large JSON requests.
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "serve/serve_fixture.hpp"
#include "strata/serve/decode_budget.hpp"

namespace strata::testing {
namespace {

using namespace std::chrono_literals;
using serve::DecodeBudget;

TEST(DecodeBudgetTest, HoldsWhatFitsAndMakesTheRestWait) {
  DecodeBudget budget(100);
  {
    const DecodeBudget::Hold a(budget, 60, 0ms), b(budget, 40, 0ms);
    EXPECT_TRUE(a.held());
    EXPECT_TRUE(b.held());
    EXPECT_EQ(budget.in_use(), 100u);
    const DecodeBudget::Hold c(budget, 1, 20ms);
    EXPECT_FALSE(c.held());  // and holds nothing
    EXPECT_EQ(budget.in_use(), 100u);
  }
  EXPECT_EQ(budget.in_use(), 0u);
  {
    const DecodeBudget::Hold alone(budget, 1000, 0ms);  // larger than the budget: decoded alone
    EXPECT_TRUE(alone.held());
    EXPECT_FALSE(DecodeBudget::Hold(budget, 1, 20ms).held());
  }
  // One waiting gets its turn when another lets go.
  auto first = std::make_unique<DecodeBudget::Hold>(budget, 80, 0ms);
  bool waited_and_held = false;
  std::thread waiter([&] { waited_and_held = DecodeBudget::Hold(budget, 50, 60s).held(); });
  std::this_thread::sleep_for(50ms);
  first.reset();
  waiter.join();
  EXPECT_TRUE(waited_and_held);
  EXPECT_EQ(budget.in_use(), 0u);
}

// The peak resident memory of a process (VmHWM), in MB.
double peak_mb(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(status, line);)
    if (line.starts_with("VmHWM:")) return std::stod(line.substr(6)) / 1024;
  ADD_FAILURE() << "no VmHWM for process " << pid;
  return 0;
}

class DecodeBudgetServeTest : public ServeTest {};

// Eight clients each send a 6 MB JSON tensor at once to a server whose body limit (and so its
// budget) is 8 MiB. Decoded together they peaked at 1,189 MB (a DOM value of 16 bytes for each
// "0," of two bytes, and its array's growth); one at a time, at 460 MB: the eight bodies, the
// decoded tensors queued for their runs, and what the allocator keeps of one decode per thread.
TEST_F(DecodeBudgetServeTest, ConcurrentLargeJsonRequestsAreDecodedWithinTheBudget) {
  auto& server = start({"--model", "mlp", "--max-body-bytes", std::to_string(8 << 20), "--http-threads", "16"});
  constexpr int64_t kRows = 187'500;  // 3 million values, 6 MB of JSON
  std::string body = R"({"inputs":[{"name":"features","datatype":"FP32","shape":[)" + std::to_string(kRows) +
                     R"(,16],"data":[)";
  body.reserve(body.size() + 2 * kRows * 16 + 64);
  for (int64_t i = 0; i < kRows * 16; ++i) body += i == 0 ? "0" : ",0";
  body += R"(]}],"parameters":{"binary_data_output":true}})";
  const double before = peak_mb(server.pid());
  std::vector<int> statuses(8, 0);
  std::vector<std::thread> clients;
  for (int c = 0; c < 8; ++c)
    clients.emplace_back([&, c] {
      auto client = server.client();
      client.set_read_timeout(120, 0);
      client.set_write_timeout(120, 0);
      const auto res = post_infer(client, "mlp", body);
      statuses[c] = res ? res->status : -1;
    });
  for (auto& t : clients) t.join();
  EXPECT_EQ(statuses, std::vector<int>(8, 200));
  const double peak = peak_mb(server.pid());
  EXPECT_LT(peak, 700) << "peak " << peak << " MB (" << before << " MB before the requests)";
}

}  // namespace
}  // namespace strata::testing
