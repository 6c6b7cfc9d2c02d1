// bench_openmp_teams: what one more OpenMP team in the process costs the CNN of `make run`.
// Every thread that starts parallel work owns a team, and libgomp stops its idle threads from
// spinning between parallel regions once the threads of all teams outnumber the cores; each
// region then sleeps and wakes its team (include/strata/core/intra_op_threads.hpp). Prints the
// p50 of batch-1 inference with a 60 us pause between runs (a server's wait for the next request),
// back to back, and of an Adam training step at batch 32, with 0 and with 1 idle extra team (a
// thread that ran one parallel region and then waits, as a server's HTTP thread did). Then the
// training steps per second of two loops on two threads at once, as a workflow worker's two slots
// train two tasks: each with all of OpenMP's threads (two full teams), or each capped at half.
//
//   bench_openmp_teams [--cpu-wakeup-latency-us N]
//     (run it with nothing else on the machine; with N, it holds that Linux PM QoS request while
//     it runs, as `strata serve --cpu-wakeup-latency-us N` does: idle CPUs then wake faster)
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "strata/core/intra_op_threads.hpp"
#include "strata/strata.hpp"
#include "../examples/fashion_mnist_cnn_net.hpp"
#include "hold_cpu_wakeup_latency.hpp"

using namespace strata;
using Clock = std::chrono::steady_clock;

namespace {

double p50_us(int runs, const std::function<void()>& run, std::chrono::microseconds pause) {
  std::vector<double> times;
  for (int i = 0; i < runs; ++i) {
    const auto start = Clock::now();
    run();
    times.push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count());
    if (pause.count() > 0) std::this_thread::sleep_for(pause);
  }
  std::nth_element(times.begin(), times.begin() + times.size() / 2, times.end());
  return times[times.size() / 2];
}

// A thread that runs one parallel region, so that it owns a team, and then waits until destroyed.
class IdleTeam {
 public:
  IdleTeam() : thread_([this] {
#pragma omp parallel
    {
      volatile int id = omp_get_thread_num();
      (void)id;
    }
    while (!stop_) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ~IdleTeam() {
    stop_ = true;
    thread_.join();
  }

 private:
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

// The weights of `net`, built by a first call on `x` (the layers infer their sizes from it).
std::vector<Tensor> built_weights(FashionMnistCnn& net, const Tensor& x) {
  net(x);
  return net.trainable_weights();
}

// `make run`'s CNN with Adam on one batch of 32 random images, stepped again and again.
struct CnnTraining {
  std::shared_ptr<FashionMnistCnn> net = std::make_shared<FashionMnistCnn>();
  Tensor x = randn({32, 28, 28, 1}), y = randint(0, 10, {32});
  optim::Adam adam{built_weights(*net, x)};

  void step() {
    Tensor loss = cross_entropy((*net)(x), y);
    adam.zero_grad();
    loss.backward();
    adam.step();
  }
};

// Adam steps per second, summed over two threads that each train their own CNN at batch 32 for
// 4 s, each under IntraOpThreadLimit(`threads_each`) (0: no cap).
double two_training_loops_steps_per_s(int threads_each) {
  std::atomic<int64_t> steps{0};
  auto loop = [&] {
    std::optional<IntraOpThreadLimit> cap;
    if (threads_each > 0) cap.emplace(threads_each);
    CnnTraining training;
    for (int i = 0; i < 3; ++i) training.step();
    const auto end = Clock::now() + std::chrono::seconds(4);
    while (Clock::now() < end) {
      training.step();
      ++steps;
    }
  };
  std::thread first(loop), second(loop);
  first.join();
  second.join();
  return static_cast<double>(steps.load()) / 4;
}

}  // namespace

int main(int argc, char** argv) {
  std::optional<serve::CpuWakeupLatency> wakeup_latency;
  if (argc == 3 && std::strcmp(argv[1], "--cpu-wakeup-latency-us") == 0)
    hold_cpu_wakeup_latency(wakeup_latency, std::stoi(argv[2]), "bench_openmp_teams");
  nn::Model model = fashion_mnist_cnn_static();
  model.eval();
  const Tensor image = randn({1, 28, 28, 1});
  auto infer = [&] {
    NoGradGuard no_grad;
    model.run({image});
  };
  CnnTraining training;
  auto step = [&] { training.step(); };
  std::printf("CNN of make run, %d OpenMP threads, %u cores, CPU wake-up latency %s; p50 of each\n\n",
              omp_get_max_threads(), std::thread::hardware_concurrency(),
              wakeup_latency ? (std::string(argv[2]) + " us (PM QoS held)").c_str() : "not held");
  std::printf("%-12s %28s %28s %24s\n", "extra teams", "batch-1 run, 60 us pause, us", "batch-1 run, back to back, us",
              "train step batch 32, ms");
  for (int extra : {0, 1, 0, 1}) {
    std::vector<std::unique_ptr<IdleTeam>> teams;
    for (int i = 0; i < extra; ++i) teams.push_back(std::make_unique<IdleTeam>());
    const double paused = p50_us(3000, infer, std::chrono::microseconds(60));
    const double back_to_back = p50_us(3000, infer, {});
    const double training = p50_us(200, step, {}) / 1000;
    std::printf("%-12d %28.1f %28.1f %24.2f\n", extra, paused, back_to_back, training);
    std::fflush(stdout);
  }
  const int half = intra_op_threads_share(2);
  std::printf("\n%-44s %16s\n", "two training loops at once (batch 32, 4 s)", "steps/s, both");
  for (int round = 0; round < 2; ++round) {
    std::printf("%-44s %16.1f\n", ("each with all " + std::to_string(intra_op_threads_max()) + " threads").c_str(),
                two_training_loops_steps_per_s(0));
    std::printf("%-44s %16.1f\n", ("each with " + std::to_string(half) + " (its share)").c_str(),
                two_training_loops_steps_per_s(half));
    std::fflush(stdout);
  }
  return 0;
}
