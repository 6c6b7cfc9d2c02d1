// Online retraining, end to end: labelled points arrive on a stream while the concept drifts
// (the class boundary turns a little each round). workflow::OnlineRetraining stores the data as
// new versions of a hub dataset and submits a retraining task when 400 new points have arrived,
// or at once when the current model's accuracy on the newest labels falls below 90%; a worker
// (here in-process; `strata worker` elsewhere) trains a classifier on that version and commits
// it as the next model version with its result.
//   strata_online_retraining [--hub PATH]   (or [hub path]; default online.db, made anew)
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include <CLI/CLI.hpp>

#include <nlohmann/json.hpp>
#include <strata/strata.hpp>
#include <strata/workflow/online_retraining.hpp>
#include <strata/workflow/worker.hpp>

using namespace strata;

// 2-D points labelled by which side of a line through the origin, at `angle`, they fall.
std::pair<Tensor, Tensor> points(int64_t n, double angle, Generator& g) {
  Tensor x = uniform({n, 2}, -1.0, 1.0, kFloat32, &g);
  Tensor side = x.select(1, 0) * std::cos(angle) + x.select(1, 1) * std::sin(angle);
  return {x, cast(side > 0.0, kInt64)};
}

nn::Model classifier() {
  auto x = nn::Input({-1, 2});
  return nn::Model(x, nn::Dense(2)(nn::Dense(16, nn::relu)(x)), "classifier");
}

// The retraining task: fit a fresh classifier on the newest `window` points of the task's
// dataset version (older points follow a boundary that has since moved).
nlohmann::json retrain(workflow::TaskContext& ctx) {
  const auto data = workflow::load_input_dataset(ctx);  // the version the task is keyed by
  const int64_t n = data.tensors.at(0).second.size(0), keep = std::min<int64_t>(n, ctx.params.at("window").get<int64_t>());
  const Tensor x = data.tensors.at(0).second.narrow(0, n - keep, keep), y = data.tensors.at(1).second.narrow(0, n - keep, keep);
  nn::Model net = classifier();
  optim::Adam adam(net.trainable_weights(), {.lr = 0.02});
  train::fit(net, adam, {}, {x, y}, {.epochs = 30, .batch_size = 64, .seed = 1, .verbose = 0});
  const double accuracy = train::evaluate(net, {}, x, y, 256).at("accuracy");
  ctx.outputs.save_model(ctx.task.model, net.named_weights(),
                         {.architecture = net.to_json(), .metrics = {{"accuracy", accuracy}},
                          .values = {{"trained_on", ctx.task.input_dataset}}});
  return {{"accuracy", accuracy}, {"samples", x.size(0)}};
}

int main(int argc, char** argv) {
  std::string path = "online.db";
  CLI::App app("strata_online_retraining: a drifting stream retrained into the hub by a worker");
  app.add_option("hub,--hub", path, "SQLite file of the hub; removed first and made anew")->type_name("PATH")->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  std::filesystem::remove(path);
  manual_seed(3);
  Generator gen(5);
  hub::Hub hub = hub::Hub::open(path);
  workflow::TaskRegistry registry;
  registry.add({.name = "retrain_classifier",
                .params = {{.name = "window", .type = workflow::ParamType::integer, .default_value = 300}},
                .fn = retrain});
  workflow::Worker worker(path, registry);
  worker.start();

  workflow::OnlineRetraining online(hub, {.dataset = "points", .model = "classifier", .kind = "retrain_classifier", .params = R"({"window": 200})"},
                                    {.new_samples = 400});
  data::AppendableStream stream;
  online.watch(stream);
  workflow::Queue queue(hub);
  for (int round = 0; round < 8; ++round) {
    const double angle = 0.25 * round;  // the drift
    auto [x, y] = points(100, angle, gen);
    // First judge the newest model on the new labels, then let the data in.
    if (auto models = hub.list_models("classifier"); !models.empty()) {
      // Saved with its architecture, so the hub gives back a ready model.
      auto latest = lifecycle::load_static_model(hub, "classifier");
      const double accuracy = train::evaluate(*latest.model, {}, x, y, 256).at("accuracy");
      const bool retraining = online.check_accuracy(accuracy, 0.9);
      std::printf("round %d: version %lld scores %.3f on the new labels%s\n", round,
                  static_cast<long long>(models.front().version), accuracy, retraining ? " -> retrain" : "");
    }
    for (int64_t i = 0; i < x.size(0); ++i) stream.append({select(x, 0, i), select(y, 0, i)});
    for (int64_t id : online.submitted()) queue.wait(id);  // this demo waits; a service would not
  }
  worker.stop();
  worker.join();
  for (const auto& m : hub.list_models("classifier"))
    std::printf("classifier v%lld: accuracy %.3f on %s\n", static_cast<long long>(m.version),
                m.meta.metrics.at("accuracy"), m.meta.values.at("trained_on").c_str());
  return hub.list_models("classifier").size() >= 2 ? 0 : 1;
}
