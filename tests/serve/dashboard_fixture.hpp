// The dashboard tests' hub: in project "default", model "mlp" (two versions with metrics) and one
// with a hostile name, a finished run and a running one with metric series and an event, a
// dataset, and a plan of two tasks (one cancelled); in project "team", model "other". And a
// `strata ui` over it, started by each test.
#pragma once
#include <memory>
#include <string>

#include "support/temp_dir.hpp"
#include "serve/serve_process.hpp"
#include "strata/core/factory.hpp"
#include "strata/hub/hub.hpp"
#include "strata/workflow/queue.hpp"

namespace strata::testing {

inline const std::string kHostileName = "<img src=x onerror=alert(1)>&amp;";

class DashboardTest : public TempDirTest {
 protected:
  void SetUp() override {
    TempDirTest::SetUp();
    hub_path_ = path("hub.db");
    auto hub = hub::Hub::open(hub_path_);
    const io::NamedTensors weights = {{"dense_1/W", ones({2, 2})}};
    hub.save_model("mlp", weights, {.metrics = {{"accuracy", 0.81}, {"loss", 0.52}}});
    hub.save_model("mlp", weights, {.metrics = {{"accuracy", 0.87}, {"loss", 0.41}}});
    hub.save_model(kHostileName, weights, {.metrics = {{"accuracy", 0.5}}});
    auto finished = hub.create_run("fashion-cnn", R"({"lr": 0.01})");
    for (int64_t e = 0; e < 3; ++e) {
      finished.log(e, hub::Split::train, {{"loss", 1.0 / (e + 1)}, {"accuracy", 0.6 + 0.1 * e}});
      finished.log(e, hub::Split::validation, "accuracy", 0.55 + 0.1 * e);
    }
    finished.event("train_end", R"({"epochs_trained": 3})");
    finished.finish();
    finished_run_ = finished.id();
    running_ = std::make_unique<hub::Run>(hub.create_run("still-training"));
    running_->log(0, hub::Split::train, "loss", 2.5);
    running_->flush();
    hub.save_dataset("fashion-mnist-small", io::NamedTensors{{"x", zeros({4, 3})}}, {.description = "a tiny slice"});
    workflow::Queue queue(hub);
    workflow::Plan plan("cnn-then-rnn");
    const int64_t cnn = plan.add({.kind = "train", .name = "train-cnn", .model = "cnn"});
    plan.add({.kind = "train", .name = "train-rnn", .model = "rnn", .after = {cnn}});
    const auto progress = queue.submit(plan);
    queue.cancel(progress.task_ids[0], "stopped by the test");
    hub.set_project("team");
    hub.save_model("other", weights);
    hub_ = std::make_unique<hub::Hub>(std::move(hub));
  }
  void TearDown() override {
    running_.reset();
    hub_.reset();
    TempDirTest::TearDown();
  }
  ServeProcess& start(const std::vector<std::string>& args = {}) {
    ui_ = std::make_unique<ServeProcess>(hub_path_, args, "ui");
    return *ui_;
  }

  std::string hub_path_;
  std::unique_ptr<hub::Hub> hub_;
  std::unique_ptr<hub::Run> running_;
  int64_t finished_run_ = 0;
  std::unique_ptr<ServeProcess> ui_;
};

}  // namespace strata::testing
