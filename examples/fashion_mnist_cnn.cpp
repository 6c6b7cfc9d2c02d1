// A small CNN trained on Fashion-MNIST, written PyTorch-style with nn::Module: layers are plain
// members (no input sizes, no registration), Adam updates the weights autograd computes, and
// the run's metrics and the trained model go into the embedded hub (SQLite, ./strata.db).
// `make run` runs this; `strata_train_fashion_mnist_cnn [epochs] [hub path]`. Exits non-zero below 85%.
#include <cstdio>
#include <string>

#include <strata/data/idx.hpp>
#include <strata/strata.hpp>
#include <strata/train/progress_bar.hpp>

using namespace strata;

// Two conv + pool blocks, then a dense classifier, on NHWC images [N, 28, 28, 1].
struct CNN : nn::Module {
  nn::Conv2d conv1{16, {5, 5}, nn::relu}, conv2{32, {5, 5}, nn::relu};
  nn::MaxPool2d pool1, pool2;  // 2x2, stride 2
  nn::Flatten flatten;
  nn::Dense hidden{256, nn::relu}, out{10};
  nn::Dropout drop{0.3};
  Tensor forward(const Tensor& x) override {
    Tensor h = pool2(conv2(pool1(conv1(x))));
    return out(drop(hidden(flatten(h))));
  }
};

// Fraction of rows whose largest logit is the target.
static double accuracy(const Tensor& logits, const Tensor& targets) {
  return mean(cast(eq(argmax(logits, 1), targets), kFloat32)).item<double>();
}

int main(int argc, char** argv) {
  const int64_t epochs = argc > 1 ? std::stoll(argv[1]) : 3, batch_size = 128;
  const std::string hub_path = argc > 2 ? argv[2] : "strata.db";
  manual_seed(7);

  data::FashionMnist ds = data::load_fashion_mnist();
  auto images = [](const Tensor& u8) { return (cast(u8, kFloat32) / 255.0).reshape({-1, 28, 28, 1}); };
  const Tensor x_train = images(ds.train_images), y_train = cast(ds.train_labels, kInt64);
  const Tensor x_test = images(ds.test_images), y_test = cast(ds.test_labels, kInt64);
  const int64_t n = x_train.size(0);

  CNN net;
  net(x_train.narrow(0, 0, 1));  // one call builds every weight, so the optimizer can see them
  std::printf("%s", net.summary().c_str());
  optim::Adam adam(net.trainable_weights(), {.lr = 1e-3});
  hub::Hub store = hub::Hub::open(hub_path);
  hub::Run run = store.create_run("fashion_mnist_cnn", R"({"optimizer": "adam", "lr": 0.001, "batch": 128})");

  for (int64_t epoch = 1; epoch <= epochs; ++epoch) {
    net.train();
    const Tensor order = randperm(n);
    train::ProgressBar bar((n + batch_size - 1) / batch_size, "epoch " + std::to_string(epoch));
    double loss_sum = 0, correct = 0;
    int64_t seen = 0;
    for (int64_t start = 0; start < n; start += batch_size) {
      const Tensor idx = order.narrow(0, start, std::min(batch_size, n - start));
      const Tensor x = index_select(x_train, 0, idx), y = index_select(y_train, 0, idx);
      const Tensor logits = net(x);
      const Tensor loss = cross_entropy(logits, y);
      adam.zero_grad();
      loss.backward();
      adam.step();
      loss_sum += loss.item<double>() * idx.numel();
      correct += accuracy(logits, y) * idx.numel();
      seen += idx.numel();
      bar.update(1, {{"loss", loss_sum / seen}, {"acc", correct / seen}});
    }
    run.log(epoch, hub::Split::train, {{"loss", loss_sum / seen}, {"accuracy", correct / seen}});
  }

  // Evaluate in batches without building a graph.
  net.eval();
  NoGradGuard no_grad;
  double correct = 0;
  for (int64_t start = 0; start < x_test.size(0); start += 1000) {
    const int64_t b = std::min<int64_t>(1000, x_test.size(0) - start);
    correct += accuracy(net(x_test.narrow(0, start, b)), y_test.narrow(0, start, b)) * b;
  }
  const double test_accuracy = correct / x_test.size(0);
  std::printf("test accuracy: %.4f\n", test_accuracy);

  // Store the model as a new version; find_top_model("fashion_mnist_cnn", "accuracy") finds the best.
  run.log(epochs, hub::Split::test, "accuracy", test_accuracy);
  run.finish();
  const int64_t version = store.save_model("fashion_mnist_cnn", net.named_weights(),
                                           {.architecture = "CNN", .metrics = {{"accuracy", test_accuracy}}});
  std::printf("saved fashion_mnist_cnn version %lld in %s\n", static_cast<long long>(version), hub_path.c_str());
  return test_accuracy >= 0.85 ? 0 : 1;
}
