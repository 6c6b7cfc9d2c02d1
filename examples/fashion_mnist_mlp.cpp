// A two-layer perceptron (784-256-10) trained on Fashion-MNIST with the functional API:
// parameters are plain tensors, autograd computes their gradients, and SGD with momentum is a
// few in-place ops. Run with `make run` (or `strata_train_fashion_mnist [epochs]`); exits non-zero
// when test accuracy is under 80%.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include <strata/data/idx.hpp>
#include <strata/strata.hpp>
#include <strata/train/progress_bar.hpp>

using namespace strata;

namespace {

// Glorot-uniform weights in TensorLayer's Dense layout [in, out], zero biases.
Tensor glorot_uniform(int64_t in, int64_t out) {
  const double limit = std::sqrt(6.0 / static_cast<double>(in + out));
  return uniform({in, out}, -limit, limit).requires_grad_();
}

// Fraction of rows whose largest logit is at the target class.
double accuracy(const Tensor& logits, const Tensor& targets) {
  return mean(cast(eq(argmax(logits, 1), targets), kFloat32)).item<double>();
}

}  // namespace

int main(int argc, char** argv) {
  const int64_t epochs = argc > 1 ? std::stoll(argv[1]) : 5, batch_size = 128;
  const double learning_rate = 0.05, momentum = 0.9;
  manual_seed(42);  // weights and shuffling are reproducible

  // Images come as uint8 [N, 28, 28]: flatten them to float rows in [0, 1].
  // cross_entropy takes int64 class ids.
  data::FashionMnist ds = data::load_fashion_mnist();
  const Tensor x_train = (cast(ds.train_images, kFloat32) / 255.0).reshape({-1, 28 * 28});
  const Tensor y_train = cast(ds.train_labels, kInt64);
  const Tensor x_test = (cast(ds.test_images, kFloat32) / 255.0).reshape({-1, 28 * 28});
  const Tensor y_test = cast(ds.test_labels, kInt64);
  const int64_t n = x_train.size(0);

  Tensor w1 = glorot_uniform(784, 256), b1 = zeros({256}).requires_grad_();
  Tensor w2 = glorot_uniform(256, 10), b2 = zeros({10}).requires_grad_();
  std::vector<Tensor*> params = {&w1, &b1, &w2, &b2};
  std::vector<Tensor> velocity;
  for (Tensor* p : params) velocity.push_back(zeros_like(*p));
  auto model = [&](const Tensor& x) { return linear(relu(linear(x, w1, b1)), w2, b2); };

  for (int64_t epoch = 1; epoch <= epochs; ++epoch) {
    const Tensor order = randperm(n);  // a new shuffle each epoch
    const int64_t steps = (n + batch_size - 1) / batch_size;
    train::ProgressBar bar(steps, "epoch " + std::to_string(epoch) + "/" + std::to_string(epochs));
    double loss_sum = 0, correct = 0;
    int64_t seen = 0;
    for (int64_t start = 0; start < n; start += batch_size) {
      const Tensor idx = order.narrow(0, start, std::min(batch_size, n - start));
      const Tensor x = index_select(x_train, 0, idx), y = index_select(y_train, 0, idx);

      const Tensor logits = model(x);
      const Tensor loss = cross_entropy(logits, y);
      for (Tensor* p : params) p->zero_grad();  // gradients accumulate across backward() calls
      loss.backward();

      {
        // The update itself must not be recorded: v = momentum * v + g; p -= lr * v.
        NoGradGuard no_grad;
        for (size_t i = 0; i < params.size(); ++i) {
          mul_(velocity[i], momentum);
          add_(velocity[i], params[i]->grad());
          add_(*params[i], velocity[i], -learning_rate);
        }
      }

      const int64_t b = idx.numel();
      loss_sum += loss.item<double>() * b;
      correct += accuracy(logits, y) * b;
      seen += b;
      bar.update(1, {{"loss", loss_sum / seen}, {"acc", correct / seen}});
    }
  }

  NoGradGuard no_grad;  // evaluation needs no graph
  const double test_accuracy = accuracy(model(x_test), y_test);
  std::printf("test accuracy: %.4f\n", test_accuracy);
  return test_accuracy >= 0.80 ? 0 : 1;
}
