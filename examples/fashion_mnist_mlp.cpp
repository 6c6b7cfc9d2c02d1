// TensorLayer's classic MLP (784-800-800-10 with dropout) on Fashion-MNIST, declared twice:
// statically (nn::Input and layers called on symbols, Keras-functional style) and dynamically
// (an nn::Module, PyTorch style). Neither declaration types an input size. Both train with
// train::fit (Adam, cosine learning-rate decay) and are measured on the test set.
//   strata_train_fashion_mnist_mlp [--epochs N] [--which static|dynamic|both]   (or positionally)
// Exits non-zero when a model's test accuracy is under 88%.
#include <cstdio>
#include <memory>
#include <string>

#include <strata/data/idx.hpp>
#include <strata/strata.hpp>

#include "flag_checks.hpp"

using namespace strata;

namespace {

// Static: the graph is recorded as layers are called on symbols; shapes are known at once.
nn::Model static_mlp() {
  auto x = nn::Input({-1, 784}, "pixels");
  auto h = nn::Dropout(0.1)(x);
  h = nn::Dropout(0.3)(nn::Dense(800, nn::relu)(h));
  h = nn::Dropout(0.3)(nn::Dense(800, nn::relu)(h));
  return nn::Model(x, nn::Dense(10)(h), "mlp_static");
}

// Dynamic: layers are members, forward calls them; the first call builds the weights.
struct DynamicMLP : nn::Module {
  nn::Dropout drop_in{0.1}, drop1{0.3}, drop2{0.3};
  nn::Dense hidden1{800, nn::relu}, hidden2{800, nn::relu}, out{10};
  DynamicMLP() : nn::Module("mlp_dynamic") {}
  Tensor forward(const Tensor& x) override { return out(drop2(hidden2(drop1(hidden1(drop_in(x)))))); }
};

struct Split {
  Tensor x_train, y_train, x_test, y_test;
};

double train_and_test(nn::Layer& net, const Split& d, int64_t epochs, bool bf16) {
  net(d.x_train.narrow(0, 0, 1));  // builds the dynamic model's weights (the static one has them)
  std::printf("%s", net.summary().c_str());
  optim::Adam adam(net.trainable_weights(), {.lr = 1e-3});
  // The rate decays to 0 along a half cosine over the run: large steps first, fine ones last.
  auto cosine = std::make_shared<train::LearningRateScheduler>(std::make_shared<optim::CosineAnnealingLR>(adam, epochs));
  train::fit(net, adam, {}, {d.x_train, d.y_train},
             {.epochs = epochs, .batch_size = 128, .bf16_mixed_precision = bf16, .seed = 42, .callbacks = {cosine}});
  const double accuracy = train::evaluate(net, {}, d.x_test, d.y_test, 1000).at("accuracy");
  std::printf("%s test accuracy: %.4f\n", net.name().c_str(), accuracy);
  return accuracy;
}

}  // namespace

int main(int argc, char** argv) {
  int64_t epochs = 10;
  std::string which = "both";
  bool bf16 = false;
  CLI::App app("strata_train_fashion_mnist_mlp: TensorLayer's MLP on Fashion-MNIST, declared statically and dynamically");
  app.add_option("epochs,--epochs", epochs, "passes over the training images")
      ->type_name("N")->check(flag_checks::at_least(1))->capture_default_str();
  app.add_option("which,--which", which, "which declaration to train")
      ->type_name("static|dynamic|both")->check(CLI::IsMember({"static", "dynamic", "both"}))->capture_default_str();
  app.add_flag("--bf16", bf16, "bf16 mixed precision (docs/mixed_precision.md)");
  CLI11_PARSE(app, argc, argv);
  manual_seed(42);

  const data::FashionMnist ds = data::load_fashion_mnist();
  auto rows = [](const Tensor& u8) { return (cast(u8, kFloat32) / 255.0).reshape({-1, 784}); };
  const Split d{rows(ds.train_images), cast(ds.train_labels, kInt64), rows(ds.test_images),
                cast(ds.test_labels, kInt64)};

  bool ok = true;
  if (which == "static" || which == "both") {
    nn::Model net = static_mlp();
    ok = train_and_test(net, d, epochs, bf16) >= 0.88 && ok;
  }
  if (which == "dynamic" || which == "both") {
    DynamicMLP net;
    ok = train_and_test(net, d, epochs, bf16) >= 0.88 && ok;
  }
  return ok ? 0 : 1;
}
