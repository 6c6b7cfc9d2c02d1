// Hyper-parameter search of the Fashion-MNIST CNN as a workflow plan (TensorLayer's paper:
// "hyper-parameter search ... as tasks"): successive halving over the learning rate, the hidden
// width and the dropout rate. Every trial is a task that trains the CNN on the first --train
// images and scores it on the next --validation ones; its model version and accuracy go into the
// hub with its result. Rung 0 trains --trials configurations for --min-epochs; each next rung
// keeps the best 1/eta with eta times the epochs. The winner is then measured on the test images.
//   strata_cnn_search --help
#include <mutex>

#include <strata/workflow/search.hpp>

#include "fashion_mnist_plans.hpp"

using namespace strata;
using namespace fashion_mnist_plans;
using nlohmann::json;

namespace {

struct Flags {
  PlanFlags common{.hub = "cnn_search.db", .workers = 2};
  int64_t trials = 9, train = 6000, validation = 2000, test = 10000;
  double min_epochs = 1, eta = 3;
};

const char* kAbout =
    "strata_cnn_search: successive-halving search of the Fashion-MNIST CNN, run as a plan by workers.\n"
    "  strata_cnn_search [flags]             submit the search, run it on --workers local processes,\n"
    "                                        and measure the best trial on the test images\n"
    "  strata_cnn_search worker --hub URL    only run trials (start one per machine on a shared hub)";

Flags parse(int argc, char** argv) {
  using flag_checks::above, flag_checks::at_least;
  Flags f;
  CLI::App app(kAbout);
  app.add_option("--trials", f.trials, "configurations in the first rung")
      ->type_name("N")->check(at_least(1))->capture_default_str();
  app.add_option("--eta", f.eta, "keep 1/eta of a rung, with eta times the epochs")
      ->type_name("X")->check(above(1))->capture_default_str();
  app.add_option("--min-epochs", f.min_epochs, "the first rung's epochs")
      ->type_name("X")->check(above(0))->capture_default_str();
  app.add_option("--train", f.train, "training images per trial")->type_name("N")->check(at_least(1))->capture_default_str();
  app.add_option("--validation", f.validation, "the next N training images score the trials")
      ->type_name("N")->check(at_least(1))->capture_default_str();
  app.add_option("--test", f.test, "test images that measure the winner")
      ->type_name("N")->check(at_least(1))->capture_default_str();
  parse_flags(app, f.common, argc, argv);
  return f;
}

// The trial's data sizes travel in its configuration ("fixed" values), so a worker started on
// another machine with only --hub trains on the same rows. A worker runs one trial at a time.
const Split& rows_for(const json& config) {
  static std::mutex mutex;
  static std::unique_ptr<Split> cached;
  static int64_t cached_train = -1, cached_validation = -1;
  const int64_t train = config.at("train_rows"), validation = config.at("validation_rows");
  std::lock_guard lock(mutex);
  if (!cached || cached_train != train || cached_validation != validation) {
    const Split all = load_split(train + validation, 0);
    std::vector<int64_t> first(train), next(validation);
    for (int64_t i = 0; i < train + validation; ++i) (i < train ? first[i] : next[i - train]) = i;
    cached = std::make_unique<Split>(Split{all.train.take(first), all.train.take(next)});
    cached_train = train, cached_validation = validation;
  }
  return *cached;
}

workflow::TaskRegistry kinds() {
  workflow::TaskRegistry registry;
  registry.add(workflow::trial_kind("fashion_mnist_cnn_trial", [](workflow::TaskContext& ctx, const workflow::Trial& t) {
    const Split& rows = rows_for(t.config);
    const TrainedCnn cnn = train_cnn(CnnConfig::from_json(t.config), t.budget, rows.train, rows.test, 100 + t.number);
    ctx.log("trial " + std::to_string(t.number) + " rung " + std::to_string(t.rung) + " " + t.config.dump() +
            " accuracy " + std::to_string(cnn.accuracy));
    return workflow::TrialResult{cnn.net->named_weights(), {{"accuracy", cnn.accuracy}}};
  }));
  return registry;
}

workflow::SearchSpec search_spec(const Flags& f) {
  return {.name = "cnn-search",
          .kind = "fashion_mnist_cnn_trial",
          .model = "fashion_mnist_cnn_search",
          .space = workflow::SearchSpace::from_json(json::parse(R"({
              "lr":      {"type": "float", "min": 1e-4, "max": 1e-2, "log": true},
              "hidden":  {"choices": [64, 128, 256]},
              "dropout": {"choices": [0.0, 0.3, 0.5]}})")),
          .method = workflow::SearchMethod::successive_halving,
          .trials = f.trials,
          .seed = 3,
          .fixed = {{"train_rows", f.train}, {"validation_rows", f.validation}},
          .metric = "accuracy",
          .order = hub::Order::descending,
          .min_budget = f.min_epochs,
          .eta = f.eta};
}

}  // namespace

int main(int argc, char** argv) {
  const Flags f = parse(argc, argv);
  if (f.common.worker) return run_worker(f.common.hub, kinds(), f.common.exit_when_idle);

  const workflow::SearchSpec spec = search_spec(f);
  hub::Hub hub = hub::Hub::open(f.common.hub);
  const workflow::PlanProgress plan = workflow::Queue(hub).submit(workflow::search_plan(spec));
  std::printf("submitted plan %lld: %zu trial tasks; running them on %d worker processes\n",
              static_cast<long long>(plan.plan_id), plan.task_ids.size(), f.common.workers);
  std::fflush(stdout);  // before the workers write to the same stdout
  run_local_workers(f.common.workers, f.common.hub);
  expect_plan_succeeded(hub, plan.plan_id);

  const auto best = workflow::find_best_trial(hub, spec);
  STRATA_CHECK(best, "the search saved no final trial");
  const json config = json::parse(best->info.meta.values.at("config"));
  const CnnConfig cnn = CnnConfig::from_json(config);
  FashionMnistCnn net(cnn.hidden, cnn.dropout);
  const Split split = load_split(0, f.test);
  net(split.test.x.narrow(0, 0, 1));
  nn::assign_weights(net, best->weights);
  const double test_accuracy = train::evaluate(net, {}, split.test.x, split.test.y, 500).at("accuracy");
  std::printf("best: %s, version %lld: validation accuracy %.4f, test accuracy %.4f on %lld images\n",
              config.dump().c_str(), static_cast<long long>(best->info.version), best->info.meta.metrics.at("accuracy"),
              test_accuracy, static_cast<long long>(split.test.size()));
  return 0;
}
