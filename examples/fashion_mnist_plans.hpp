// What the plan examples share (cnn_search.cpp, cnn_cross_validation.cpp, two_stage.cpp): the
// Fashion-MNIST rows as float images, the CNN of fashion_mnist_cnn_net.hpp trained on chosen
// rows with a JSON configuration, and running a submitted plan on worker processes.
//
// A plan's task kinds are C++ functions, so the `strata worker` binary cannot run them: each
// example is its own worker (`PROGRAM worker --hub URL`, on as many machines as you like, all
// pointing at one PostgreSQL hub), and by default it submits the plan and then starts
// `--workers N` such processes of itself on this machine, which exit when the plan is done.
#pragma once
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <strata/data/idx.hpp>
#include <strata/strata.hpp>
#include <strata/workflow/queue.hpp>
#include <strata/workflow/worker.hpp>

#include "fashion_mnist_cnn_net.hpp"
#include "flag_checks.hpp"

extern char** environ;

namespace fashion_mnist_plans {

using namespace strata;

// The flags every plan example has: `PROGRAM [worker] --hub URL --workers N --exit-when-idle`.
struct PlanFlags {
  std::string hub;
  int workers = 2;
  bool worker = false, exit_when_idle = false;
};

// Adds the shared flags and the `worker` subcommand to `app`, which holds the program's own
// flags, and parses `PROGRAM [worker] [--flag value]...` into them and `common` (whose values are
// the defaults --help shows). Every flag is read after `worker` too (CLI11's fallthrough). A bad
// flag or value exits with CLI11's message, which names it, and a non-zero status.
inline void parse_flags(CLI::App& app, PlanFlags& common, int argc, char** argv) {
  app.fallthrough();
  const CLI::App* worker =
      app.add_subcommand("worker", "only run the plan's tasks, until SIGTERM (its flags: --hub, --exit-when-idle)");
  app.add_option("--hub", common.hub, "SQLite path or postgresql:// URL")->type_name("URL")->capture_default_str();
  app.add_option("--workers", common.workers, "local worker processes")
      ->type_name("N")->check(flag_checks::at_least(1))->capture_default_str();
  app.add_flag("--exit-when-idle", common.exit_when_idle, "(worker) exit once nothing is left to run");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    std::exit(app.exit(e));
  }
  common.worker = worker->parsed();
}

struct Rows {
  Tensor x, y;  // images [N, 28, 28, 1] in [0, 1], labels [N] int64
  int64_t size() const { return x.shape()[0]; }
  Rows take(const std::vector<int64_t>& rows) const {
    const Tensor index = from_vector(rows);
    return {index_select(x, 0, index), index_select(y, 0, index)};
  }
};

struct Split {
  Rows train, test;
};

// The first `train_rows` training images and the first `test_rows` test images.
inline Split load_split(int64_t train_rows, int64_t test_rows) {
  const data::FashionMnist ds = data::load_fashion_mnist();
  auto rows = [](const Tensor& images, const Tensor& labels, int64_t n) {
    n = std::min(n, images.shape()[0]);
    return Rows{(cast(images.narrow(0, 0, n), kFloat32) / 255.0).reshape({-1, 28, 28, 1}),
                cast(labels.narrow(0, 0, n), kInt64)};
  };
  return {rows(ds.train_images, ds.train_labels, train_rows), rows(ds.test_images, ds.test_labels, test_rows)};
}

// A configuration's CNN: {"lr", "hidden", "dropout"}; missing keys take the example's defaults.
struct CnnConfig {
  double lr = 1e-3;
  int64_t hidden = 256;
  double dropout = 0.3;
  static CnnConfig from_json(const nlohmann::json& j) {
    CnnConfig c;
    c.lr = j.value("lr", c.lr);
    c.hidden = j.value("hidden", c.hidden);
    c.dropout = j.value("dropout", c.dropout);
    return c;
  }
};

struct TrainedCnn {
  std::unique_ptr<FashionMnistCnn> net;
  double accuracy = 0;  // on `validation`
};

// Trains a fresh CNN for `epochs` (fractional budgets round up) and measures it on `validation`.
inline TrainedCnn train_cnn(const CnnConfig& config, double epochs, const Rows& train_rows, const Rows& validation,
                            uint64_t seed) {
  manual_seed(seed);
  TrainedCnn out{std::make_unique<FashionMnistCnn>(config.hidden, config.dropout)};
  (*out.net)(train_rows.x.narrow(0, 0, 1));  // builds the weights for the optimizer
  optim::Adam adam(out.net->trainable_weights(), {.lr = config.lr});
  train::fit(*out.net, adam, {}, {train_rows.x, train_rows.y},
             {.epochs = static_cast<int64_t>(std::ceil(epochs)), .batch_size = 64, .seed = seed, .verbose = 0});
  out.accuracy = train::evaluate(*out.net, {}, validation.x, validation.y, 500).at("accuracy");
  return out;
}

// `PROGRAM worker`: runs the registered kinds until SIGTERM, or until nothing is left to run.
inline int run_worker(const std::string& hub_url, const workflow::TaskRegistry& kinds, bool exit_when_idle) {
  workflow::Worker worker(hub_url, kinds,
                          {.exit_when_idle = exit_when_idle,
                           .on_event = [](const std::string& line) { std::printf("[worker %d] %s\n", ::getpid(), line.c_str()); }});
  worker.run();
  return 0;
}

// Starts `n` processes `this_program worker --hub URL --exit-when-idle` and waits for them.
// Each gets one compute thread unless OMP_NUM_THREADS says otherwise, so that n workers share
// the cores instead of each spinning on all of them.
inline void run_local_workers(int n, const std::string& hub_url) {
  ::setenv("OMP_NUM_THREADS", "1", /*overwrite=*/0);
  std::vector<pid_t> pids;
  for (int i = 0; i < n; ++i) {
    std::vector<std::string> args{"/proc/self/exe", "worker", "--hub", hub_url, "--exit-when-idle"};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_t pid = 0;
    STRATA_CHECK(::posix_spawn(&pid, argv[0], nullptr, nullptr, argv.data(), environ) == 0, "cannot start worker ", i);
    pids.push_back(pid);
  }
  for (pid_t pid : pids) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    STRATA_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "worker process ", pid, " failed");
  }
}

// Waits for a submitted plan's tasks and fails naming the first that did not succeed.
inline void expect_plan_succeeded(hub::Hub& hub, int64_t plan_id) {
  workflow::Queue queue(hub);
  const workflow::PlanProgress done = queue.wait_plan(plan_id, std::chrono::seconds(1));
  STRATA_CHECK(done.all_succeeded(), "the plan did not succeed: ", done.summary());
}

}  // namespace fashion_mnist_plans
