// bench_dist: what data parallelism costs on this machine. An MPI job; rank 0 prints the tables:
//   OMP_NUM_THREADS=1 mpirun -n 2 build/bench/bench_dist      (and -n 1 for the one-process step)
// 1. All-reduce: Strata's bucket pass (gradients divided by the world size into buckets, or a
//    lone weight's in place; one MPI_Iallreduce per bucket, wait, copy back) against MPI_Allreduce on
//    one buffer of the same size.
// 2. An MLP 784-800-800-10 (DESIGN.md's, without dropout), and the CNN of `make run` (without
//    dropout), each with a global batch of 256 split over the
//    ranks: step time of the compute alone (no reduction) and with DataParallel, in alternate
//    steps, the wait that backward did not hide, the share of the reduction hidden behind
//    backward, and the ranks' skew in the compute alone (the part of the wait that is the other
//    rank finishing later, not communication).
// 3. Gradient accumulation: the MLP's global batch of 256 as 4 micro-batches of 64 a step, every
//    backward reduced against the first three under DataParallel::no_sync (one reduction a step).
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <functional>
#include <string>

#include "dist/gradient_buckets.hpp"
#include "strata/dist/dist.hpp"
#include "strata/strata.hpp"
#include "../examples/fashion_mnist_cnn_net.hpp"

using namespace strata;

namespace {

constexpr int kWarmup = 3, kRepeats = 15;

double median(std::vector<double> values) {
  std::nth_element(values.begin(), values.begin() + values.size() / 2, values.end());
  return values[values.size() / 2];
}

// Medians over kRepeats of one fn's time: the slowest rank's, and how much later the slowest rank
// finished than the fastest (the skew: what a collective at the end would wait on the other rank).
struct Timing {
  double seconds, skew;
};

// Every rank starts each fn together. The fns take turns within each repetition, so that on a
// loaded machine they see the same load (timed one after the other, a change in load between
// them showed up as their ratio).
std::vector<Timing> median_timings(const std::vector<std::function<void()>>& fns) {
  for (int i = 0; i < kWarmup; ++i)
    for (const auto& fn : fns) fn();
  std::vector<std::vector<double>> times(fns.size()), skews(fns.size());
  for (int i = 0; i < kRepeats; ++i)
    for (size_t k = 0; k < fns.size(); ++k) {
      MPI_Barrier(MPI_COMM_WORLD);
      const auto t0 = std::chrono::steady_clock::now();
      fns[k]();
      double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), slowest = 0,
             fastest = 0;
      MPI_Allreduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
      MPI_Allreduce(&t, &fastest, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
      times[k].push_back(slowest);
      skews[k].push_back(slowest - fastest);
    }
  std::vector<Timing> medians;
  for (size_t k = 0; k < fns.size(); ++k) medians.push_back({median(times[k]), median(skews[k])});
  return medians;
}

double median_seconds(const std::function<void()>& fn) { return median_timings({fn})[0].seconds; }

// The machine's load average (it is shared), for the record next to the figures.
std::string load_average() {
  std::ifstream in("/proc/loadavg");
  std::string one, five, fifteen;
  in >> one >> five >> fifteen;
  return one + " " + five + " " + fifteen;
}

// Weights totalling `bytes`, in 8 tensors, with gradients, as DataParallel sees them.
std::vector<std::pair<std::string, Tensor>> weights_of(int64_t bytes) {
  std::vector<std::pair<std::string, Tensor>> weights;
  for (int k = 0; k < 8; ++k) {
    Tensor w = zeros({bytes / 4 / 8});
    w.requires_grad_();
    w.set_grad(ones({bytes / 4 / 8}));
    weights.emplace_back("w" + std::to_string(k), w);
  }
  return weights;
}

// DataParallel's bucket sizes: `bucket_mb`, the first one at most 1 MB.
double bucket_pass_seconds(const std::vector<std::pair<std::string, Tensor>>& weights, double bucket_mb) {
  const auto bytes = static_cast<int64_t>(bucket_mb * 1024 * 1024);
  dist::detail::GradientBuckets buckets(weights, bytes, std::min<int64_t>(bytes, 1 << 20), dist::world().size);
  return median_seconds([&] {
    for (size_t k = weights.size(); k-- > 0;) buckets.gradient_ready(k);
  });
}

void all_reduce_table(int rank, int size) {
  if (rank == 0) {
    std::printf("\nAll-reduce of float32 gradients over %d ranks (median of %d; bus GB/s = 2(n-1)/n x bytes / time)\n",
                size, kRepeats);
    std::printf("| size | MPI_Allreduce ms | GB/s | Strata buckets (25 MB) ms | GB/s | ratio |\n|---|---|---|---|---|---|\n");
  }
  for (int64_t mb : {1, 4, 16, 64}) {
    const int64_t bytes = mb * 1024 * 1024;
    Tensor buffer = ones({bytes / 4});
    const double mpi = median_seconds([&] {
      MPI_Allreduce(MPI_IN_PLACE, buffer.raw_data(), static_cast<int>(buffer.numel()), MPI_FLOAT, MPI_SUM,
                    MPI_COMM_WORLD);
    });
    const double ours = bucket_pass_seconds(weights_of(bytes), 25);
    const double bus = 2.0 * (size - 1) / size * static_cast<double>(bytes) / 1e9;
    if (rank == 0)
      std::printf("| %lld MB | %.2f | %.2f | %.2f | %.2f | %.2f |\n", static_cast<long long>(mb), mpi * 1e3,
                  bus / mpi, ours * 1e3, bus / ours, ours / mpi);
  }
}

struct MLP : nn::Module {
  nn::Dense a{800, nn::relu}, b{800, nn::relu}, out{10};
  Tensor forward(const Tensor& x) override { return out(b(a(x))); }
};

// One network's training step, global batch 256 split over the ranks, SGD: the compute alone
// and with DataParallel (25 MB and 1 MB buckets), in turns. Net is default-constructible.
template <typename Net>
void step_table(int rank, int size, const char* title, Shape example_shape) {
  const int64_t global_batch = 256, local = global_batch / size;
  Generator gen(1);
  example_shape.insert(0, local);
  Tensor x = randn(example_shape, kFloat32, &gen), y = randint(0, 10, {local}, kInt64, &gen);
  if (rank == 0) {
    std::printf("\n%s, global batch %lld, %d rank(s) of %lld rows, SGD (median of %d steps)\n", title,
                static_cast<long long>(global_batch), size, static_cast<long long>(local), kRepeats);
    std::printf("| bucket MB | compute alone ms | with DataParallel ms | added | exposed wait ms | reduction alone ms | hidden | rank skew ms |\n");
    std::printf("|---|---|---|---|---|---|---|---|\n");
  }
  Net plain;
  plain(x);
  optim::SGD plain_sgd(plain.trainable_weights(), {.lr = 0.01});
  const auto compute_step = [&] {
    plain_sgd.zero_grad();
    cross_entropy(plain(x), y).backward();
    plain_sgd.step();
  };
  for (double bucket_mb : {25.0, 1.0}) {
    Net net;
    net(x);
    dist::DataParallel model(net, {.bucket_megabytes = bucket_mb});
    optim::SGD sgd(model.trainable_weights(), {.lr = 0.01});
    std::vector<double> waits;  // per step, this rank's; the median, as for the step times
    const std::vector<Timing> medians = median_timings({compute_step, [&] {
      const double before = model.stats().wait_seconds;
      sgd.zero_grad();
      cross_entropy(model(x), y).backward();
      sgd.step();
      waits.push_back(model.stats().wait_seconds - before);
    }});
    const double compute = medians[0].seconds, skew = medians[0].skew, step = medians[1].seconds;
    const double exposed = median(waits);
    const auto after = model.stats();
    const double alone = bucket_pass_seconds(net.named_weights(), bucket_mb);
    if (rank == 0)
      std::printf("| %.0f (%lld buckets) | %.2f | %.2f | %+.0f%% | %.2f | %.2f | %.0f%% | %.2f |\n", bucket_mb,
                  static_cast<long long>(after.buckets), compute * 1e3, step * 1e3, (step / compute - 1) * 100,
                  exposed * 1e3, alone * 1e3, std::max(0.0, 1 - exposed / alone) * 100, skew * 1e3);
  }
}

// The global batch of 256 as `micro` micro-batches a step, split over the ranks, SGD: every
// backward pass reduced, and all but the last under no_sync.
template <typename Net>
void accumulation_table(int rank, int size, const char* title, Shape example_shape, int64_t micro) {
  const int64_t local = 256 / micro / size;
  Generator gen(2);
  example_shape.insert(0, local);
  Tensor x = randn(example_shape, kFloat32, &gen), y = randint(0, 10, {local}, kInt64, &gen);
  Net net;
  net(x);
  dist::DataParallel model(net);
  optim::SGD sgd(model.trainable_weights(), {.lr = 0.01});
  const auto step = [&](bool local_passes) {
    sgd.zero_grad();
    const auto pass = [&] { cross_entropy(model(x), y).backward(); };
    for (int64_t m = 0; m < micro; ++m) {
      if (local_passes && m + 1 < micro) {
        auto local_only = model.no_sync();
        pass();
      } else {
        pass();
      }
    }
    sgd.step();
  };
  const std::vector<Timing> medians = median_timings({[&] { step(false); }, [&] { step(true); }});
  if (rank == 0) {
    std::printf("\n%s, global batch 256 as %lld micro-batches of %lld rows per rank, %d rank(s), SGD (median of %d "
                "steps)\n| every backward reduced ms | all but the last under no_sync ms | saved |\n|---|---|---|\n",
                title, static_cast<long long>(micro), static_cast<long long>(local), size, kRepeats);
    std::printf("| %.2f | %.2f | %.0f%% |\n", medians[0].seconds * 1e3, medians[1].seconds * 1e3,
                (1 - medians[1].seconds / medians[0].seconds) * 100);
  }
}

// The CNN `make run` trains, without dropout (its random masks are not what is timed).
struct Cnn : FashionMnistCnn {
  Cnn() : FashionMnistCnn(256, 0.0) {}
};

}  // namespace

int main() {
  const dist::World& w = dist::init();
  if (w.rank == 0) std::printf("load average at the start: %s\n", load_average().c_str());
  if (w.size > 1) all_reduce_table(w.rank, w.size);
  step_table<MLP>(w.rank, w.size, "MLP 784-800-800-10", {784});
  step_table<Cnn>(w.rank, w.size, "The Fashion-MNIST CNN of `make run` (conv 5x5 16, pool, conv 5x5 32, pool, dense 256, 10)", {28, 28, 1});
  accumulation_table<MLP>(w.rank, w.size, "MLP 784-800-800-10", {784}, 4);
  if (w.rank == 0) std::printf("\nload average at the end: %s\n", load_average().c_str());
  return 0;
}
