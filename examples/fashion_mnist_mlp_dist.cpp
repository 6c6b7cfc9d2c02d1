// The Fashion-MNIST MLP (784-800-800-10 with dropout) trained by several processes at once:
// dist::DataParallel keeps one model on every process, train::fit gives each its slice of every
// batch, and rank 0 prints and evaluates (docs/distributed.md).
//   strata launch -n 2 strata_train_fashion_mnist_mlp_dist [--epochs N]   (or [epochs])
// Exits non-zero when the test accuracy is under 88% (after 10 epochs; fewer epochs: 80%).
#include <cstdio>
#include <memory>
#include <string>

#include <strata/data/idx.hpp>
#include <strata/dist/dist.hpp>
#include <strata/strata.hpp>

#include "flag_checks.hpp"

using namespace strata;

namespace {

struct MLP : nn::Module {
  nn::Dropout drop_in{0.1}, drop1{0.3}, drop2{0.3};
  nn::Dense hidden1{800, nn::relu}, hidden2{800, nn::relu}, out{10};
  MLP() : nn::Module("mlp") {}
  Tensor forward(const Tensor& x) override { return out(drop2(hidden2(drop1(hidden1(drop_in(x)))))); }
};

}  // namespace

int main(int argc, char** argv) {
  int64_t epochs = 10;
  CLI::App app("strata_train_fashion_mnist_mlp_dist: the Fashion-MNIST MLP trained by every process of `strata launch`");
  app.add_option("epochs,--epochs", epochs, "passes over the training images")
      ->type_name("N")->check(flag_checks::at_least(1))->capture_default_str();
  CLI11_PARSE(app, argc, argv);  // before dist::init, so --help needs no MPI
  const dist::World& world = dist::init();

  // Every process loads the whole data set: fit slices each batch by rank.
  const data::FashionMnist ds = data::load_fashion_mnist();
  auto rows = [](const Tensor& u8) { return (cast(u8, kFloat32) / 255.0).reshape({-1, 784}); };
  const Tensor x_train = rows(ds.train_images), y_train = cast(ds.train_labels, kInt64);

  MLP net;
  net(x_train.narrow(0, 0, 1));
  dist::DataParallel model(net);  // every process now holds rank 0's initial weights
  // After the broadcast, a different seed per rank: dropout masks differ between the slices.
  manual_seed(42 + world.rank);

  optim::Adam adam(model.trainable_weights(), {.lr = 1e-3});
  auto cosine = std::make_shared<train::LearningRateScheduler>(std::make_shared<optim::CosineAnnealingLR>(adam, epochs));
  // batch_size is the global batch: 128 rows per step, whatever the number of processes.
  train::History h = train::fit(model, adam, {}, {x_train, y_train},
                                {.epochs = epochs, .batch_size = 128, .seed = 42, .callbacks = {cosine}});

  if (world.rank != 0) return 0;
  const double accuracy =
      train::evaluate(net, {}, rows(ds.test_images), cast(ds.test_labels, kInt64), 1000).at("accuracy");
  const auto stats = model.stats();
  std::printf("%d processes: test accuracy %.4f; gradients %.1f MB in %lld bucket(s), %.1f ms per step waiting\n",
              world.size, accuracy, stats.bytes / 1e6, static_cast<long long>(stats.buckets),
              stats.wait_seconds / static_cast<double>(stats.passes) * 1e3);
  return accuracy >= (epochs >= 10 ? 0.88 : 0.80) ? 0 : 1;
}
