// k-fold cross-validation of the Fashion-MNIST CNN as a workflow plan: one task per fold trains
// the CNN on the other folds' images and scores it on its own, then an aggregate task records
// the accuracy's mean and standard deviation over the folds in the hub (a dataset version). The
// folds are the data module's kfold_indices over the first --examples training images, shuffled
// with a fixed seed, so every worker computes the same ones.
//   strata_cnn_cross_validation --help
#include <mutex>

#include <strata/workflow/cross_validation.hpp>

#include "fashion_mnist_plans.hpp"

using namespace strata;
using namespace fashion_mnist_plans;
using nlohmann::json;

namespace {

struct Flags {
  PlanFlags common{.hub = "cnn_cross_validation.db", .workers = 2};
  int64_t folds = 5, examples = 6000;
  double epochs = 2, lr = 1e-3;
};

const char* kAbout =
    "strata_cnn_cross_validation: k-fold cross-validation of the Fashion-MNIST CNN, run as a plan.\n"
    "  strata_cnn_cross_validation [flags]           submit it, run it on --workers local processes,\n"
    "                                                and print each fold's and the mean accuracy\n"
    "  strata_cnn_cross_validation worker --hub URL  only run folds (one per machine on a shared hub)";

Flags parse(int argc, char** argv) {
  using flag_checks::above, flag_checks::at_least;
  Flags f;
  CLI::App app(kAbout);
  app.add_option("--folds", f.folds, "folds")->type_name("K")->check(at_least(2))->capture_default_str();
  app.add_option("--examples", f.examples, "the first N training images are split into the folds (at least one each)")
      ->type_name("N")->check(at_least(2))->capture_default_str();
  app.add_option("--epochs", f.epochs, "epochs per fold")->type_name("X")->check(above(0))->capture_default_str();
  app.add_option("--lr", f.lr, "Adam's learning rate")->type_name("X")->check(above(0))->capture_default_str();
  app.callback([&f] {
    if (f.examples < f.folds)
      throw CLI::ValidationError("--examples", std::to_string(f.examples) + " images cannot make " +
                                                   std::to_string(f.folds) + " folds (--folds)");
  });
  parse_flags(app, f.common, argc, argv);
  return f;
}

// The rows the folds index: the first `examples` training images (in the fold's config, so a
// worker started elsewhere with only --hub reads the same ones). A worker runs one fold at a time.
const Rows& examples_for(const json& config) {
  static std::mutex mutex;
  static std::unique_ptr<Rows> cached;
  const int64_t examples = config.at("examples");
  std::lock_guard lock(mutex);
  if (!cached || cached->size() != examples) cached = std::make_unique<Rows>(load_split(examples, 0).train);
  return *cached;
}

workflow::TaskRegistry kinds() {
  workflow::TaskRegistry registry;
  registry.add(workflow::fold_kind("fashion_mnist_cnn_fold", [](workflow::TaskContext& ctx, const workflow::CrossValidationFold& f) {
    const Rows& rows = examples_for(f.config);
    const TrainedCnn cnn = train_cnn(CnnConfig::from_json(f.config), f.config.at("epochs").get<double>(), rows.take(f.train),
                                     rows.take(f.validation), 200 + f.number);
    ctx.log("fold " + std::to_string(f.number) + " accuracy " + std::to_string(cnn.accuracy));
    return workflow::FoldResult{cnn.net->named_weights(), {{"accuracy", cnn.accuracy}}};
  }));
  registry.add(workflow::cross_validation_aggregate_kind());
  return registry;
}

}  // namespace

int main(int argc, char** argv) {
  const Flags f = parse(argc, argv);
  if (f.common.worker) return run_worker(f.common.hub, kinds(), f.common.exit_when_idle);

  hub::Hub hub = hub::Hub::open(f.common.hub);
  workflow::Queue queue(hub);
  const workflow::PlanProgress plan = queue.submit(workflow::cross_validation_plan(
      {.name = "cnn-cv",
       .kind = "fashion_mnist_cnn_fold",
       .model = "fashion_mnist_cnn_cv",
       .examples = f.examples,
       .folds = f.folds,
       .shuffle_seed = 4,
       .config = {{"lr", f.lr}, {"epochs", f.epochs}, {"examples", f.examples}}}));
  std::printf("submitted plan %lld: %lld folds and an aggregate; running them on %d worker processes\n",
              static_cast<long long>(plan.plan_id), static_cast<long long>(f.folds), f.common.workers);
  std::fflush(stdout);  // before the workers write to the same stdout
  run_local_workers(f.common.workers, f.common.hub);
  expect_plan_succeeded(hub, plan.plan_id);

  // The aggregate is the plan's last task: {"folds", "metrics": {"accuracy": {"mean", "std", "values"}}}.
  const json summary = json::parse(*queue.get(plan.task_ids.back())->result).at("metrics").at("accuracy");
  std::printf("accuracy per fold:");
  for (double v : summary.at("values")) std::printf(" %.4f", v);
  std::printf("\n%lld-fold accuracy: %.4f +- %.4f (population std), stored as dataset cnn-cv\n",
              static_cast<long long>(f.folds), summary.at("mean").get<double>(), summary.at("std").get<double>());
  return 0;
}
