// The `make run` CNN (examples/fashion_mnist_cnn_net.hpp, declared statically) trained for one
// epoch by train::fit on the first N Fashion-MNIST images, timed: the C++ side of
// bench/python/bench_python.py's "fit from Python vs fit from C++" (which runs this binary).
//   bench_fit_cnn [N=20000]   prints "fit_cnn_cpp <samples/s>"
#include <chrono>
#include <cstdio>
#include <string>

#include "../examples/fashion_mnist_cnn_net.hpp"

int main(int argc, char** argv) {
  using namespace strata;
  const int64_t n = argc > 1 ? std::stoll(argv[1]) : 20000;
  const data::FashionMnist ds = data::load_fashion_mnist();
  // As the example feeds them: float32 in [0, 1], int64 labels.
  const Tensor x = (cast(narrow(ds.train_images, 0, 0, n), kFloat32) / 255.0).reshape({n, 28, 28, 1});
  const Tensor y = cast(narrow(ds.train_labels, 0, 0, n), kInt64);
  manual_seed(7);
  nn::Model net = fashion_mnist_cnn_static();
  optim::Adam adam(net.trainable_weights(), {.lr = 1e-3});
  const auto start = std::chrono::steady_clock::now();
  train::fit(net, adam, {}, {x, y}, {.epochs = 1, .batch_size = 128, .seed = 7, .verbose = 0});
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("fit_cnn_cpp %.1f\n", static_cast<double>(n) / seconds);
}
