// Post-training int8 quantisation of the Fashion-MNIST CNN (docs/quantization.md): trains the
// `make run` network briefly (or takes the latest fashion_mnist_cnn from the hub), calibrates its
// int8 twin on training images with nn::quantize_int8, reports float32 vs int8 test accuracy and
// saves the int8 model whole into the hub as fashion_mnist_cnn_int8, which `strata serve` serves.
#include <cstdio>
#include <string>

#include <strata/nn/int8.hpp>
#include <strata/strata.hpp>

#include "fashion_mnist_cnn_net.hpp"
#include "flag_checks.hpp"

using namespace strata;

int main(int argc, char** argv) {
  int64_t epochs = 2, train_images = 60000, calibration_batches = 8, calibration_batch = 64;
  std::string hub_path = "strata.db", method = "min_max";
  double percentile = 99.99;
  bool from_hub = false;
  CLI::App app(
      "strata_fashion_mnist_int8: float32 vs int8 accuracy of the Fashion-MNIST CNN, the int8 model into the hub");
  app.add_option("--epochs", epochs, "training passes (ignored with --from-hub)")
      ->type_name("N")
      ->check(flag_checks::at_least(1))
      ->capture_default_str();
  app.add_option("--train", train_images, "training images used (the first N of 60,000)")
      ->type_name("N")
      ->check(CLI::Range(int64_t{1}, int64_t{60000}))
      ->capture_default_str();
  app.add_option("--calibration-batches", calibration_batches, "batches of training images the ranges are taken from")
      ->type_name("N")
      ->check(flag_checks::at_least(1))
      ->capture_default_str();
  app.add_option("--calibration-batch", calibration_batch, "images per calibration batch")
      ->type_name("N")
      ->check(CLI::Range(int64_t{1}, int64_t{60000}))
      ->capture_default_str();
  app.add_option("--method", method, "calibration: min_max or percentile")
      ->check(CLI::IsMember({"min_max", "percentile"}))
      ->capture_default_str();
  app.add_option("--percentile", percentile, "with --method percentile: the range's upper percentile")
      ->type_name("P")
      ->check(CLI::Range(50.0, 100.0))
      ->capture_default_str();
  app.add_option("--hub", hub_path, "SQLite path or postgresql:// URL of the hub")
      ->type_name("URL")
      ->capture_default_str();
  app.add_flag("--from-hub", from_hub,
               "quantise the hub's latest fashion_mnist_cnn (from `make run`) instead of training");
  CLI11_PARSE(app, argc, argv);
  if (calibration_batches * calibration_batch > 60000) {
    std::fprintf(stderr, "--calibration-batches x --calibration-batch must be at most 60000 images\n");
    return 2;
  }
  manual_seed(7);

  const data::FashionMnist ds = data::load_fashion_mnist();
  auto images = [](const Tensor& u8) { return (cast(u8, kFloat32) / 255.0).reshape({-1, 28, 28, 1}); };
  const Tensor x_train = images(ds.train_images), y_train = cast(ds.train_labels, kInt64);
  const Tensor x_test = images(ds.test_images), y_test = cast(ds.test_labels, kInt64);
  hub::Hub store = hub::Hub::open(hub_path);

  std::shared_ptr<nn::Model> net;
  if (from_hub) {
    net = lifecycle::load_static_model(store, "fashion_mnist_cnn").model;
  } else {
    net = std::make_shared<nn::Model>(fashion_mnist_cnn_static());
    optim::Adam adam(net->trainable_weights(), {.lr = 1e-3});
    train::fit(*net, adam, {}, {x_train.narrow(0, 0, train_images), y_train.narrow(0, 0, train_images)},
               {.epochs = epochs, .batch_size = 128, .seed = 7, .verbose = 0});
  }
  net->eval();

  // Calibration reads training images, never the test set the accuracy is reported on.
  std::vector<Tensor> calibration;
  for (int64_t i = 0; i < calibration_batches; ++i)
    calibration.push_back(x_train.narrow(0, i * calibration_batch, calibration_batch));
  const nn::QuantizedModel q =
      nn::quantize_int8(*net, calibration,
                        {.method = method == "percentile" ? nn::Calibration::percentile : nn::Calibration::min_max,
                         .percentile = percentile});
  std::printf("%s", q.report().c_str());

  const double float_accuracy = train::evaluate(*net, {}, x_test, y_test, 1000).at("accuracy");
  const double int8_accuracy = train::evaluate(*q.model, {}, x_test, y_test, 1000).at("accuracy");
  std::printf("float32 test accuracy: %.4f, int8 test accuracy: %.4f (int8 - float32: %+.2f points)\n", float_accuracy,
              int8_accuracy, 100 * (int8_accuracy - float_accuracy));

  const int64_t version =
      lifecycle::save_model(store, "fashion_mnist_cnn_int8", *q.model,
                            {.metrics = {{"accuracy", int8_accuracy}, {"float32_accuracy", float_accuracy}}});
  std::printf("saved fashion_mnist_cnn_int8 version %lld in %s\n", static_cast<long long>(version), hub_path.c_str());
}
