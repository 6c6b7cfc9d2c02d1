// The job that tests/dist/test_jobs.cpp starts with mpirun or `strata launch`:
//   dist_job hello ARGS        each rank prints "rank R of N (local L of M): ARGS" after a barrier
//   dist_job throw             rank 1 throws an exception that nothing catches
//   dist_job kill              rank 1 is killed by SIGKILL
//   dist_job return            rank 1 returns 3 from main (MPI is finalised at exit)
//   dist_job train HUB EPOCHS [resume]
//                              fit with DataParallel, Adam and a checkpoint per epoch into the
//                              SQLite hub HUB up to epoch EPOCHS; `resume` continues from the
//                              hub's latest checkpoint (weights, Adam's moments, epoch, seed)
//   dist_job compare HUB1 HUB2 exit 0 when the latest checkpoints match (1e-5)
// In throw, kill and return, without the fault handling the other ranks would wait in all_reduce for ever.
#include <csignal>
#include <cmath>
#include <iostream>
#include <optional>
#include <string>

#include "strata/dist/dist.hpp"
#include "strata/strata.hpp"

using namespace strata;

namespace {

struct MLP : nn::Module {
  nn::Dense a{16, nn::tanh}, b{12, nn::relu}, out{3};
  Tensor forward(const Tensor& x) override { return out(b(a(x))); }
};

// Adam: the checkpoint must hold its moments and step counts as well as the weights.
int train_job(const std::string& hub_path, int64_t epochs, bool resume) {
  const dist::World& world = dist::world();
  Generator gen(11);
  const Tensor x = randn({60, 6}, kFloat32, &gen), y = randint(0, 3, {60}, kInt64, &gen);
  manual_seed(1);
  MLP net;
  net(x.narrow(0, 0, 2));
  dist::DataParallel model(net);
  optim::Adam adam(model.trainable_weights(), {.lr = 0.01});
  train::FitOptions options{.epochs = epochs, .batch_size = 12, .seed = 5, .verbose = 0};
  // Every rank reads the checkpoint (the same one: it is read before anyone writes); rank 0
  // alone writes checkpoints (ModelCheckpoint is rank_zero_only).
  std::optional<hub::Hub> hub;
  if (resume || world.rank == 0) hub.emplace(hub::Hub::open(hub_path));
  if (resume) lifecycle::resume_from(*hub, "mlp", model, adam, options);
  dist::barrier();
  if (world.rank == 0)
    options.callbacks.push_back(std::make_shared<lifecycle::ModelCheckpoint>(
        *hub, "mlp", lifecycle::ModelCheckpointOptions{.monitor = "loss", .save_best_only = false}));
  train::fit(model, adam, {}, {x, y}, options);
  return 0;
}

int compare_job(const std::string& hub1, const std::string& hub2) {
  auto a = hub::Hub::open(hub1).load_model("mlp").weights, b = hub::Hub::open(hub2).load_model("mlp").weights;
  double worst = a.size() == b.size() ? 0 : INFINITY;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
    if (a[i].first != b[i].first) worst = INFINITY;
    auto va = a[i].second.to_vector<double>(), vb = b[i].second.to_vector<double>();
    for (size_t k = 0; k < va.size() && k < vb.size(); ++k) worst = std::max(worst, std::abs(va[k] - vb[k]));
  }
  std::cout << "largest difference " << worst << std::endl;
  return worst <= 1e-5 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  const dist::World& world = dist::init();
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "train" && argc >= 4)
    return train_job(argv[2], std::stoll(argv[3]), argc > 4 && std::string(argv[4]) == "resume");
  if (mode == "compare" && argc == 4) return compare_job(argv[2], argv[3]);
  dist::barrier();
  if (mode == "hello") {
    std::cout << "rank " << world.rank << " of " << world.size << " (local " << world.local_rank << " of "
              << world.local_size << "):";
    for (int i = 2; i < argc; ++i) std::cout << ' ' << argv[i];
    std::cout << std::endl;
    return 0;
  }
  if (world.rank == 1) {
    if (mode == "kill") std::raise(SIGKILL);
    if (mode == "return") return 3;  // an error caught and reported by main's own return
    throw Error("the data on rank 1 is bad");
  }
  Tensor t = ones({4});
  dist::all_reduce(t);  // never completes: rank 1 is gone
  std::cout << "rank " << world.rank << " finished, which it must not\n";
  return 0;
}
