// A small CNN trained on Fashion-MNIST, written PyTorch-style with nn::Module: layers are plain
// members (no input sizes, no registration), train::fit trains it with Adam, and
// the run's metrics and the trained model go into the embedded hub (SQLite, ./strata.db).
// `make run` runs this; `strata_train_fashion_mnist_cnn --help` says its flags (the older positional
// form `[epochs] [hub path] [cpu|cuda]` still works). Exits non-zero below --min-accuracy (91%).
#include <cstdio>
#include <memory>
#include <string>

#include <strata/data/idx.hpp>
#include <strata/strata.hpp>

#include "fashion_mnist_cnn_net.hpp"
#include "flag_checks.hpp"

using namespace strata;

int main(int argc, char** argv) {
  int64_t epochs = 10;
  std::string hub_path = "strata.db", device_name = "cpu";
  double min_accuracy = 0.91;
  bool bf16 = false;
  CLI::App app("strata_train_fashion_mnist_cnn: the Fashion-MNIST CNN trained into the hub (what `make run` runs)");
  app.add_option("epochs,--epochs", epochs, "passes over the 60,000 training images")
      ->type_name("N")->check(flag_checks::at_least(1))->capture_default_str();
  app.add_option("hub,--hub", hub_path, "SQLite path or postgresql:// URL of the hub")->type_name("URL")->capture_default_str();
  app.add_option("device,--device", device_name, "cpu, or cuda (cuda:N) to train on the GPU (docs/cuda.md)")
      ->type_name("DEVICE")
      ->check([](const std::string& name) {  // whatever Device::parse takes
        try {
          Device::parse(name);
          return std::string();
        } catch (const Error& e) {
          return std::string(e.what());
        }
      })
      ->capture_default_str();
  app.add_option("--min-accuracy", min_accuracy, "exit status 1 below this test accuracy (a short run sets 0)")
      ->type_name("FRACTION")->check(CLI::Range(0.0, 1.0))->capture_default_str();
  app.add_flag("--bf16", bf16,
               "bf16 mixed precision: matmuls and convolutions in bf16, float32 master weights "
               "(docs/mixed_precision.md; float32 after a warning where the CPU has no native bf16)");
  CLI11_PARSE(app, argc, argv);
  const Device device = Device::parse(device_name);
  manual_seed(7);

  const data::FashionMnist ds = data::load_fashion_mnist();
  auto images = [](const Tensor& u8) { return (cast(u8, kFloat32) / 255.0).reshape({-1, 28, 28, 1}); };
  const Tensor x_train = images(ds.train_images), y_train = cast(ds.train_labels, kInt64);
  const Tensor x_test = images(ds.test_images), y_test = cast(ds.test_labels, kInt64);

  FashionMnistCnn net;
  net.to(device);  // fit and evaluate copy each batch there
  net(x_train.narrow(0, 0, 1).to(device));  // one call builds every weight, so the optimizer can see them
  std::printf("%s", net.summary().c_str());
  optim::Adam adam(net.trainable_weights(), {.lr = 1e-3});

  // The run's metrics go into the hub as training goes (per 50 batches and per epoch).
  hub::Hub store = hub::Hub::open(hub_path);
  auto logger = std::make_shared<lifecycle::HubLogger>(store, "fashion_mnist_cnn",
                                                       R"({"optimizer": "adam", "lr": 0.001, "batch": 128})", 50);
  auto cosine =
      std::make_shared<train::LearningRateScheduler>(std::make_shared<optim::CosineAnnealingLR>(adam, epochs));
  train::fit(
      net, adam, {}, {x_train, y_train},
      {.epochs = epochs, .batch_size = 128, .bf16_mixed_precision = bf16, .seed = 7, .callbacks = {logger, cosine}});

  const double test_accuracy = train::evaluate(net, {}, x_test, y_test, 1000).at("accuracy");
  std::printf("test accuracy: %.4f\n", test_accuracy);
  // Which classes it confuses, as a page to look at.
  train::ConfusionMatrix confusion(10);
  confusion.update(train::predict(net, x_test, 1000).to(kCPU), y_test);
  const std::string confusion_page = "fashion_mnist_cnn_confusion.html";
  const auto& names = data::kFashionMnistClassNames;
  train::save_confusion_matrix_html(confusion, confusion_page, {names.begin(), names.end()},
                                    "Fashion-MNIST CNN: test set");
  std::printf("its confusion matrix on the test set: %s\n", confusion_page.c_str());

  // A new version of the model, saved whole (architecture and weights) so that `strata serve` can
  // rebuild it; find_top_model("fashion_mnist_cnn", "accuracy") finds the best.
  nn::Model servable = fashion_mnist_cnn_static();
  net.to(kCPU);
  nn::assign_weights(servable, net.all_weights());
  const int64_t version = lifecycle::save_model(store, "fashion_mnist_cnn", servable,
                                                {.metrics = {{"accuracy", test_accuracy}}, .run_id = logger->run_id()});
  std::printf("saved fashion_mnist_cnn version %lld in %s (run %lld)\n", static_cast<long long>(version),
              hub_path.c_str(), static_cast<long long>(logger->run_id()));
  return test_accuracy >= min_accuracy ? 0 : 1;
}
