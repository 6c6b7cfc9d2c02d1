// The serve tests' fixture: a SQLite hub holding version 1 of the MLP "mlp" and the CNN "cnn"
// (served_models.hpp), and a `strata serve` process over it started by each test.
#pragma once
#include <memory>

#include "support/temp_dir.hpp"
#include "serve/infer_client.hpp"
#include "serve/serve_process.hpp"
#include "serve/served_models.hpp"

namespace strata::testing {

class ServeTest : public TempDirTest {
 protected:
  void SetUp() override {
    TempDirTest::SetUp();
    manual_seed(7);
    hub_path_ = path("hub.db");
    auto hub = hub::Hub::open(hub_path_);
    save_random_version(hub, "mlp", *mlp_);
    save_random_version(hub, "cnn", *cnn_);
  }
  ServeProcess& start(std::vector<std::string> args = {}) {
    if (args.empty()) args = {"--model", "mlp", "--model", "cnn"};
    server_ = std::make_unique<ServeProcess>(hub_path_, args);
    return *server_;
  }
  Tensor predict(const std::string& name, int64_t version, const Tensor& x) const {
    return predict_in_process(hub_path_, name, version, x);
  }

  std::string hub_path_;
  std::shared_ptr<nn::Model> mlp_ = make_served_mlp(), cnn_ = make_served_cnn();
  std::unique_ptr<ServeProcess> server_;
};

}  // namespace strata::testing
