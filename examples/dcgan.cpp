// DCGAN (Radford et al.; TensorLayer's DCGAN example) on Fashion-MNIST, or on any folder of
// images (e.g. CelebA's img_align_celeba), read gray and resized to 28x28. A short custom loop:
// per step the discriminator learns real (1) against generated (0), then the generator learns to
// be called real. Per epoch a grid of samples from fixed noise goes to <out>/epoch_NNN.png, and
// the two losses to <out>/losses.png. No input sizes are typed: every layer infers its own.
// With --fid N, the quality figure: the Fréchet distance on the 256 features of the Fashion-MNIST
// classifier of fashion_mnist_cnn.cpp (trained here first), for N generated images against N
// real ones, beside the real-vs-real floor (train vs test images) and the untrained generator.
// The losses per epoch are a run in the hub (--hub), and the generator a model version there.
// With --loss wgan-gp, WGAN-GP (Gulrajani et al.) instead: a critic scores images (no sigmoid),
// trained on 5 batches per generator step to widen the score gap between real and generated,
// with a penalty keeping the norm of its gradient at images mixed from both near 1. That
// gradient is itself differentiated (autograd::grad with create_graph), so the critic is made
// of Dense layers: conv2d's backward is first-order only (docs/conventions.md).
//   strata_dcgan --help
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <strata/data/idx.hpp>
#include <strata/strata.hpp>
#include <strata/vision/image.hpp>
#include <strata/viz/visualize.hpp>

#include "fashion_mnist_cnn_net.hpp"
#include "flag_checks.hpp"

using namespace strata;

namespace {

constexpr int64_t kNoise = 100;

// z [N, 100] -> images [N, 28, 28, 1] in [-1, 1].
struct GeneratorNet : nn::Module {
  nn::Dense project{7 * 7 * 64};
  nn::Reshape to_map{Shape{7, 7, 64}};  // per sample: the batch axis is kept
  nn::BatchNorm2d bn0, bn1;
  nn::DeConv2d up1{32, {5, 5}}, up2{1, {5, 5}};  // stride 2 each: 7 -> 14 -> 28
  Tensor forward(const Tensor& z) override {
    Tensor h = relu(bn0(to_map(project(z))));
    return tanh(up2(relu(bn1(up1(h)))));
  }
};

// images [N, 28, 28, 1] -> one logit each [N, 1] (real > 0).
struct DiscriminatorNet : nn::Module {
  nn::Conv2d conv1{32, {5, 5}, {}, nn::same_padding(2)}, conv2{64, {5, 5}, {}, nn::same_padding(2)};
  nn::BatchNorm2d bn;
  nn::Flatten flatten;
  nn::Dense out{1};
  Tensor forward(const Tensor& x) override {
    Tensor h = leaky_relu(conv1(x), 0.2);
    return out(flatten(leaky_relu(bn(conv2(h)), 0.2)));
  }
};

// WGAN-GP's critic: images [N, 28, 28, 1] -> one score each [N, 1] (real scores higher).
// No batch norm: the penalty is on each sample's own gradient.
struct CriticNet : nn::Module {
  nn::Flatten flatten;
  nn::Dense h1{512, nn::leaky_relu}, h2{256, nn::leaky_relu}, out{1};
  Tensor forward(const Tensor& x) override { return out(h2(h1(flatten(x)))); }
};

struct Flags {
  int64_t epochs = 5, steps = 0, batch = 64, fid = 0, fid_train = 60000;
  uint64_t seed = 42;
  std::string images, out = "dcgan_out", loss = "gan", hub = "strata.db";
};

// The flags, parsed by CLI11 (--help lists them with their defaults).
Flags parse(int argc, char** argv) {
  using flag_checks::at_least;
  Flags f;
  CLI::App app("strata_dcgan: DCGAN on Fashion-MNIST (Debian's dataset-fashion-mnist) or an image folder.");
  app.add_option("--epochs", f.epochs, "passes over the data")->type_name("N")->check(at_least(1))->capture_default_str();
  app.add_option("--steps", f.steps, "at most N batches per epoch, 0 = all")
      ->type_name("N")->check(at_least(0))->capture_default_str();
  app.add_option("--batch", f.batch, "batch size")->type_name("N")->check(at_least(2))->capture_default_str();
  CLI::Option* images = app.add_option("--images", f.images,
                                       "train on the images in DIR and its sub-folders (gray, resized to 28x28) "
                                       "instead of Fashion-MNIST")->type_name("DIR");
  app.add_option("--out", f.out, "where epoch_NNN.png sample grids and losses.png go")
      ->type_name("DIR")->capture_default_str();
  app.add_option("--seed", f.seed, "random seed")->type_name("N")->capture_default_str();
  app.add_option("--fid", f.fid, "after training, Frechet distances on N images (Fashion-MNIST only; 0 = off)")
      ->type_name("N")->check(CLI::IsMember({int64_t{0}}) | CLI::Range(int64_t{2}, int64_t{10000}))
      ->capture_default_str()->excludes(images);
  app.add_option("--fid-train", f.fid_train, "train the feature classifier of --fid on the first N training images")
      ->type_name("N")->check(at_least(128))->capture_default_str();
  app.add_option("--loss", f.loss, "gan: DCGAN; wgan-gp: WGAN-GP, a Dense critic with gradient penalty")
      ->type_name("L")->check(CLI::IsMember({"gan", "wgan-gp"}))->capture_default_str();
  app.add_option("--hub", f.hub, "the hub for the run's losses and the generator")->type_name("URL")->capture_default_str();
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    std::exit(app.exit(e));
  }
  return f;
}

// The training images as float [N, 28, 28, 1] in [-1, 1] (the generator's tanh range).
Tensor load_images(const Flags& f) {
  Tensor u8;
  if (f.images.empty()) {
    u8 = data::load_fashion_mnist().train_images.reshape({-1, 28, 28, 1});
  } else {
    std::vector<Tensor> all;
    for (const data::Example& ex : data::image_files(f.images, {.channels = 1}, true).dataset())
      all.push_back(vision::resize(ex[0], 28, 28));
    u8 = stack(all, 0);
  }
  return cast(u8, kFloat32) / 127.5 - 1.0;
}

// The classifier's 256 penultimate features of images in [0, 1].
Tensor features(FashionMnistCnn& net, const Tensor& x01) {
  NoGradGuard no_grad;
  net.eval();
  return net.features(x01);
}

Tensor generated(GeneratorNet& g, int64_t n) {
  NoGradGuard no_grad;
  g.eval();
  return (g(randn({n, kNoise})) + 1.0) / 2.0;
}

// Trains the feature classifier, then prints the three distances; returns the trained generator's.
double report_fid(GeneratorNet& trained, const Flags& f) {
  const data::FashionMnist ds = data::load_fashion_mnist();
  auto unit = [](const Tensor& u8) { return (cast(u8, kFloat32) / 255.0).reshape({-1, 28, 28, 1}); };
  const Tensor x_train = unit(ds.train_images), x_test = unit(ds.test_images);
  const int64_t n_fit = std::min<int64_t>(f.fid_train, x_train.shape()[0]);
  FashionMnistCnn net;
  net(x_train.narrow(0, 0, 1));
  optim::Adam adam(net.trainable_weights(), {.lr = 1e-3});
  train::fit(net, adam, {}, {x_train.narrow(0, 0, n_fit), cast(ds.train_labels, kInt64).narrow(0, 0, n_fit)},
             {.epochs = 1, .batch_size = 128, .seed = 7, .verbose = 0});
  const double accuracy = train::evaluate(net, {}, x_test, cast(ds.test_labels, kInt64), 1000).at("accuracy");
  GeneratorNet untrained;
  untrained(zeros({2, kNoise}));
  const Tensor real = features(net, x_train.narrow(0, 0, f.fid));
  const double floor = data::frechet_distance(real, features(net, x_test.narrow(0, 0, f.fid)));
  const double ceiling = data::frechet_distance(real, features(net, generated(untrained, f.fid)));
  const double fid = data::frechet_distance(real, features(net, generated(trained, f.fid)));
  std::printf("feature classifier test accuracy %.4f; Frechet distance on %lld images: real-vs-real %.3f, "
              "untrained generator %.3f, trained generator %.3f\n",
              accuracy, static_cast<long long>(f.fid), floor, ceiling, fid);
  return fid;
}

// The training step of each loss, on one batch of real images; the losses it computes are
// summed per epoch in `sums` (with their `counts`) for the curves.
struct Gan {
  GeneratorNet& g;
  nn::Layer& d;
  optim::Optimizer &g_opt, &d_opt;
  std::map<std::string, double> sums, counts;
  void add(const std::string& key, const Tensor& value) {
    sums[key] += value.item<double>();
    counts[key] += 1;
  }
  static void update(optim::Optimizer& opt, const Tensor& loss) {
    opt.zero_grad();
    loss.backward();
    opt.step();
  }

  // DCGAN: the discriminator learns real (1) against generated (0), then the generator, through
  // the updated discriminator, learns to be called real.
  void dcgan_step(const Tensor& real) {
    const int64_t b = real.shape()[0];
    const Tensor fake = g(randn({b, kNoise}));
    const Tensor ones = full({b, 1}, 1.0), zero = zeros({b, 1});
    const Tensor d_loss = binary_cross_entropy_with_logits(d(real), ones) +
                          binary_cross_entropy_with_logits(d(fake.detach()), zero);
    update(d_opt, d_loss);
    const Tensor g_loss = binary_cross_entropy_with_logits(d(fake), ones);
    update(g_opt, g_loss);
    add("d_loss", d_loss);
    add("g_loss", g_loss);
  }

  // WGAN-GP: the critic minimises score(fake) - score(real) + 10 (|grad score(mixed)| - 1)^2 on
  // every batch (step counts batches from the start); the generator maximises score(fake) on
  // every 5th.
  void wgan_gp_step(const Tensor& real, int64_t step) {
    constexpr double kPenalty = 10;
    constexpr int64_t kCriticSteps = 5;
    const int64_t b = real.shape()[0];
    Tensor fake;
    {
      NoGradGuard no_grad;  // the critic's step does not reach the generator
      fake = g(randn({b, kNoise}));
    }
    const Tensor mix = rand({b, 1, 1, 1});
    const Tensor mixed = (real * mix + fake * (1.0 - mix)).requires_grad_();
    const Tensor slopes = autograd::grad({d(mixed)}, {mixed}, {full({b, 1}, 1.0)}, false, /*create_graph=*/true)[0];
    const Tensor norms = sqrt(sum(square(slopes), {1, 2, 3}) + 1e-12);
    const Tensor gap = mean(d(real)) - mean(d(fake));  // the critic's Wasserstein-1 estimate
    const Tensor penalty = mean(square(norms - 1.0)) * kPenalty;
    update(d_opt, penalty - gap);
    add("wasserstein", gap);
    add("penalty", penalty);
    if ((step + 1) % kCriticSteps != 0) return;
    const Tensor g_loss = -mean(d(g(randn({b, kNoise}))));
    update(g_opt, g_loss);
    add("g_loss", g_loss);
  }
};

}  // namespace

int main(int argc, char** argv) try {
  const Flags f = parse(argc, argv);
  manual_seed(f.seed);
  const Tensor images = load_images(f);
  const int64_t n = images.shape()[0];
  std::printf("%lld training images\n", static_cast<long long>(n));
  std::filesystem::create_directories(f.out);

  const bool wgan = f.loss == "wgan-gp";
  GeneratorNet g;
  std::unique_ptr<nn::Layer> d;
  if (wgan) d = std::make_unique<CriticNet>();
  else d = std::make_unique<DiscriminatorNet>();
  (*d)(g(zeros({2, kNoise})));  // builds both networks' weights before the optimizers take them
  // DCGAN's Adam: lr 2e-4, beta1 0.5 (the default 0.9 makes the game oscillate); WGAN-GP's
  // paper: lr 1e-4, beta1 0, beta2 0.9.
  const optim::AdamOptions adam = wgan ? optim::AdamOptions{.lr = 1e-4, .beta1 = 0, .beta2 = 0.9}
                                       : optim::AdamOptions{.lr = 2e-4, .beta1 = 0.5};
  optim::Adam g_opt(g.trainable_weights(), adam), d_opt(d->trainable_weights(), adam);
  Gan gan{g, *d, g_opt, d_opt};
  const Tensor fixed_z = randn({64, kNoise});
  std::map<std::string, std::vector<double>> curves;
  // The run's losses per epoch and the trained generator go into the hub.
  hub::Hub store = hub::Hub::open(f.hub);
  const std::string name = wgan ? "wgan_gp" : "dcgan";
  const nlohmann::json config = {{"loss", f.loss}, {"epochs", f.epochs}, {"batch", f.batch}, {"seed", f.seed},
                                 {"images", f.images}};
  hub::Run run = store.create_run(name, config.dump());

  const int64_t per_epoch = f.steps > 0 ? std::min(f.steps, n / f.batch) : n / f.batch;
  for (int64_t epoch = 1; epoch <= f.epochs; ++epoch) {
    const Tensor order = randperm(n);
    gan.sums.clear();
    gan.counts.clear();
    for (int64_t s = 0; s < per_epoch; ++s) {
      const Tensor real = index_select(images, 0, order.narrow(0, s * f.batch, f.batch));
      if (wgan) gan.wgan_gp_step(real, (epoch - 1) * per_epoch + s);
      else gan.dcgan_step(real);
    }
    std::string shown;
    for (const auto& [key, total] : gan.sums) {
      curves[key].push_back(total / gan.counts[key]);
      run.log(epoch, hub::Split::train, key, curves[key].back());
      char value[64];
      std::snprintf(value, sizeof value, " %s %.4f", key.c_str(), curves[key].back());
      shown += value;
    }
    char png[32];
    std::snprintf(png, sizeof png, "epoch_%03lld.png", static_cast<long long>(epoch));
    {
      NoGradGuard no_grad;
      g.eval();  // batch norm on its moving statistics, so a sample does not depend on its batch
      viz::save_images(g(fixed_z), (std::filesystem::path(f.out) / png).string(), 8, 8, 2);
      g.train();
    }
    viz::save_curves(curves, (std::filesystem::path(f.out) / "losses.png").string());
    std::printf("epoch %lld:%s -> %s/%s\n", static_cast<long long>(epoch), shown.c_str(), f.out.c_str(), png);
  }
  hub::ModelMeta meta{.run_id = run.id()};
  if (f.fid > 0) meta.metrics["frechet_distance"] = report_fid(g, f);
  run.finish();
  const int64_t version = lifecycle::save_model(store, name + "_generator", g, meta);
  std::printf("saved %s_generator version %lld in %s (run %lld)\n", name.c_str(), static_cast<long long>(version),
              f.hub.c_str(), static_cast<long long>(run.id()));
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "%s\n", e.what());
  return 2;
}
