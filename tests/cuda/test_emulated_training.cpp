// `make run`'s CNN (examples/fashion_mnist_cnn_net.hpp) trained with train::fit on the emulated
// CUDA device, against the same run on the CPU: every family a training step uses (convolution,
// pooling, dense layers, dropout, cross-entropy, Adam) through the CUDA backend's kernels, and
// fit, evaluate and predict moving host batches to the model's device.
#include <gtest/gtest.h>

#include "cuda/emulated_backend.hpp"
#include "fashion_mnist_cnn_net.hpp"
#include "ops/conformance_runs.hpp"

namespace strata::testing {
namespace {

struct TrainedCnn {
  std::vector<std::vector<double>> weights;
  train::History history;
  double accuracy = 0;
  std::vector<double> predictions;
};

TrainedCnn train_cnn(Device device) {
  manual_seed(11);
  Generator data_gen(5);
  const Tensor x = uniform({32, 28, 28, 1}, 0, 1, kFloat32, &data_gen);
  const Tensor y = randint(0, 10, {32}, kInt64, &data_gen);
  FashionMnistCnn net(32, 0.25);
  net.to(device);
  net(x.narrow(0, 0, 1).to(device));  // builds the weights on the device
  optim::Adam adam(net.trainable_weights(), {.lr = 1e-3});
  TrainedCnn run;
  run.history = train::fit(net, adam, {}, {x, y}, {.epochs = 2, .batch_size = 16, .seed = 3, .verbose = 0});
  run.accuracy = train::evaluate(net, {}, x, y, 24).at("accuracy");
  const Tensor predicted = train::predict(net, x.narrow(0, 0, 5), 2);
  EXPECT_EQ(predicted.device(), device);
  run.predictions = predicted.to_vector<double>();
  for (const Tensor& w : net.all_weights()) {
    EXPECT_EQ(w.device(), device);
    run.weights.push_back(w.to_vector<double>());
  }
  return run;
}

TEST(EmulatedCudaTraining, FitTrainsTheExampleCnnAsTheCpuDoes) {
  install_emulated_cuda();
  const TrainedCnn cpu = train_cnn(kCPU), device = train_cnn(kEmulatedCuda);
  ASSERT_EQ(device.weights.size(), cpu.weights.size());
  // float32 throughout: the CPU's oneDNN convolutions sum in another order.
  for (size_t i = 0; i < cpu.weights.size(); ++i) expect_values_near(device.weights[i], cpu.weights[i], 1e-4, "weight");
  expect_values_near(device.predictions, cpu.predictions, 1e-4, "prediction");
  EXPECT_EQ(device.accuracy, cpu.accuracy);
  EXPECT_NEAR(device.history["loss"].back(), cpu.history["loss"].back(), 1e-4);
}

}  // namespace
}  // namespace strata::testing
