// How much speed Strata keeps when another process keeps a core busy, as on a user's machine
// with a build or a browser running. Measures `make run`'s CNN (examples/fashion_mnist_cnn.cpp:
// Adam, batch 128) in training steps/s and its batch-1 inference latency (p50/p99), first on a
// quiet machine, then with one competing busy process (a forked child spinning on a core).
// Run it twice to compare with OpenMP's thread count left alone:
//   build-bench/bench/bench_under_load
//   STRATA_ADAPTIVE_THREADS=0 build-bench/bench/bench_under_load
// Targets (issue 13): loaded training >= 40% of quiet; loaded batch-1 p99 < 5x quiet p50.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

#include "strata/strata.hpp"
#include "../examples/fashion_mnist_cnn_net.hpp"

using namespace strata;
using Clock = std::chrono::steady_clock;

namespace {

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// Training steps per second over `seconds` of steps, after a warm-up.
double training_steps_per_s(FashionMnistCnn& net, optim::Adam& adam, double seconds) {
  const Tensor x = rand({128, 28, 28, 1});
  const Tensor y = randint(0, 10, {128});
  auto step = [&] {
    adam.zero_grad();
    cross_entropy(net(x), y).backward();
    adam.step();
  };
  for (int i = 0; i < 5; ++i) step();
  int steps = 0;
  const auto t0 = Clock::now();
  while (seconds_since(t0) < seconds) {
    step();
    ++steps;
  }
  return steps / seconds_since(t0);
}

struct Latency {
  double p50_us, p99_us;
};

Latency batch1_latency(FashionMnistCnn& net, int calls) {
  nn::EvalScope eval(net);
  NoGradGuard no_grad;
  const Tensor x = rand({1, 28, 28, 1});
  for (int i = 0; i < 50; ++i) net(x);
  std::vector<double> us;
  us.reserve(calls);
  for (int i = 0; i < calls; ++i) {
    const auto t0 = Clock::now();
    net(x);
    us.push_back(seconds_since(t0) * 1e6);
  }
  std::sort(us.begin(), us.end());
  return {us[us.size() / 2], us[us.size() * 99 / 100]};
}

// A child process that keeps one core busy until killed.
pid_t start_competitor() {
  const pid_t pid = fork();
  if (pid == 0) {
    volatile unsigned long spin = 0;
    for (;;) spin = spin + 1;
  }
  return pid;
}

}  // namespace

int main() {
  manual_seed(7);
  FashionMnistCnn net;
  net(rand({1, 28, 28, 1}));
  optim::Adam adam(net.trainable_weights(), {.lr = 1e-3});
  const char* adaptive = std::getenv("STRATA_ADAPTIVE_THREADS");
  std::printf("adaptive threads: %s\n", adaptive != nullptr && adaptive[0] == '0' ? "off" : "on");

  const double quiet_steps = training_steps_per_s(net, adam, 8.0);
  const Latency quiet = batch1_latency(net, 3000);

  const pid_t competitor = start_competitor();
  usleep(500'000);  // the thread budget averages the load over 0.4 s
  const double loaded_steps = training_steps_per_s(net, adam, 8.0);
  const Latency loaded = batch1_latency(net, 3000);
  kill(competitor, SIGKILL);
  waitpid(competitor, nullptr, 0);

  std::printf("%-34s %10s %10s %8s\n", "", "quiet", "loaded", "ratio");
  std::printf("%-34s %10.1f %10.1f %7.0f%%  (target >= 40%%)\n", "CNN training, steps/s (batch 128)",
              quiet_steps, loaded_steps, 100 * loaded_steps / quiet_steps);
  std::printf("%-34s %10.0f %10.0f\n", "CNN batch-1 latency p50, us", quiet.p50_us, loaded.p50_us);
  std::printf("%-34s %10.0f %10.0f %7.1fx  (loaded p99 / quiet p50, target < 5x)\n",
              "CNN batch-1 latency p99, us", quiet.p99_us, loaded.p99_us, loaded.p99_us / quiet.p50_us);
  return 0;
}
