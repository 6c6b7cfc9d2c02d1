// Issue 43.3: under a memory limit (an address-space limit here, what `ulimit -v` sets),
// training, loading a large model and serving fail with a clear out-of-memory error, and what
// was stored stays whole. A tensor that could not be allocated threw std::bad_alloc, printed as
// "std::bad_alloc" or ending in terminate; `strata serve` with more HTTP threads than the limit
// allowed hung for ever (httplib's pool left its threads waiting on a destroyed condition).
// AddressSanitizer reserves terabytes of address space, so these run in the release build only.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "strata/hub/hub.hpp"
#include "strata/lifecycle/hub_logger.hpp"
#include "strata/lifecycle/hub_models.hpp"
#include "strata/strata.hpp"
#include "support/address_sanitizer.hpp"
#include "support/temp_dir.hpp"
#include "temp_hub.hpp"

namespace strata::reliability {
namespace {

// This process's address space now (VmSize), in bytes.
uint64_t address_space_bytes() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("VmSize:", 0) == 0) return std::stoull(line.substr(7)) * 1024;
  return 0;
}

// Lowers RLIMIT_AS to what the process uses now plus `headroom`, for this object's life.
class AddressSpaceLimit {
 public:
  explicit AddressSpaceLimit(uint64_t headroom) {
    ::getrlimit(RLIMIT_AS, &saved_);
    const rlimit limit{address_space_bytes() + headroom, saved_.rlim_max};
    ::setrlimit(RLIMIT_AS, &limit);
  }
  ~AddressSpaceLimit() { ::setrlimit(RLIMIT_AS, &saved_); }

 private:
  rlimit saved_{};
};

bool says_out_of_memory(const std::string& message) {
  return message.find("out of memory") != std::string::npos || message.find("Cannot allocate memory") != std::string::npos;
}

using MemoryLimits = testing::TempDirTest;

TEST_F(MemoryLimits, TrainingOutOfMemoryIsAClearErrorAndTheHubStaysWhole) {
  if (kAddressSanitizer) GTEST_SKIP() << "AddressSanitizer's address space is not limited";
  auto hub = hub::Hub::open(path("hub.db"));
  manual_seed(1);
  const io::NamedTensors before = {{"w", randn({256, 256})}};
  hub.save_model("before", before);
  const Tensor x = randn({16384, 512}), y = randint(0, 10, {16384});
  nn::Sequential net({std::make_shared<nn::Dense>(4096, nn::relu), std::make_shared<nn::Dense>(10)});
  net(x.narrow(0, 0, 1));  // weights built, OpenMP's threads started, before the limit
  optim::Adam adam(net.trainable_weights(), {.lr = 1e-3});
  auto logger = std::make_shared<lifecycle::HubLogger>(hub, "under-a-limit");
  std::string message;
  {
    // A batch of 16,384 rows needs 256 MiB for the hidden layer's output alone.
    const AddressSpaceLimit limit(uint64_t{128} << 20);
    try {
      train::fit(net, adam, {}, {x, y}, {.epochs = 1, .batch_size = 16384, .callbacks = {logger}, .verbose = 0});
      ADD_FAILURE() << "training 256 MiB of activations fit in 128 MiB";
    } catch (const Error& e) {
      message = e.what();
    }
  }
  EXPECT_TRUE(says_out_of_memory(message)) << message;
  std::printf("training under the limit: %s\n", message.c_str());
  // What was stored before is whole, and the hub takes new writes.
  EXPECT_TRUE(allclose(hub.load_model("before").weights[0].second, before[0].second, 0, 0));
  EXPECT_EQ(hub.save_model("after", before), 1);
  EXPECT_FALSE(hub.list_runs().empty());
}

TEST_F(MemoryLimits, LoadingAModelLargerThanTheLimitIsAClearError) {
  if (kAddressSanitizer) GTEST_SKIP() << "AddressSanitizer's address space is not limited";
  auto hub = hub::Hub::open(path("hub.db"));
  manual_seed(2);
  const io::NamedTensors big = {{"w", randn({8192, 8192})}};  // 256 MiB
  hub.save_model("big", big);
  std::string message;
  {
    const AddressSpaceLimit limit(uint64_t{96} << 20);
    try {
      hub.load_model("big");
      ADD_FAILURE() << "a 256 MiB model loaded within 96 MiB";
    } catch (const Error& e) {
      message = e.what();
    }
  }
  EXPECT_TRUE(says_out_of_memory(message)) << message;
  std::printf("loading under the limit: %s\n", message.c_str());
  EXPECT_TRUE(allclose(hub.load_model("big").weights[0].second, big[0].second, 0, 0)) << "stored whole, loads after";
}

// `strata serve` whose HTTP threads do not fit under `ulimit -v` ends with a message; it hung.
TEST_F(MemoryLimits, AServerThatCannotStartItsThreadsSaysSoAndExits) {
  if (kAddressSanitizer) GTEST_SKIP() << "AddressSanitizer's address space is not limited";
  {
    auto hub = hub::Hub::open(path("hub.db"));
    auto input = nn::Input({-1, 16});
    nn::Model model(input, nn::Dense(4)(input), "mlp");
    lifecycle::save_model(hub, "mlp", model);
  }
  // 400 threads of 8 MiB stacks cannot fit in 600 MiB; the server itself fits (about 300 MiB).
  const std::string command = "ulimit -v 600000; timeout 60 '" STRATA_CLI_PATH "' serve --hub '" + path("hub.db") +
                              "' --model mlp --port 0 --http-threads 400 2>&1";
  FILE* pipe = ::popen(("sh -c \"" + command + "\"").c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string output;
  char buf[4096];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, pipe)) > 0;) output.append(buf, n);
  const int status = ::pclose(pipe);
  EXPECT_EQ(WEXITSTATUS(status), 1) << "124: it hung until the timeout; 134: it aborted\n" << output;
  EXPECT_NE(output.find("cannot start HTTP thread"), std::string::npos) << output;
  EXPECT_EQ(output.find("terminate called"), std::string::npos) << output;
}

}  // namespace
}  // namespace strata::reliability
