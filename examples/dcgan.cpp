// DCGAN (Radford et al.; TensorLayer's DCGAN example) on Fashion-MNIST, or on any folder of
// images (e.g. CelebA's img_align_celeba), read gray and resized to 28x28. A short custom loop:
// per step the discriminator learns real (1) against generated (0), then the generator learns to
// be called real. Per epoch a grid of samples from fixed noise goes to <out>/epoch_NNN.png, and
// the two losses to <out>/losses.png. No input sizes are typed: every layer infers its own.
// With --fid N, the quality figure: the Fréchet distance on the 256 features of the Fashion-MNIST
// classifier of fashion_mnist_cnn.cpp (trained here first), for N generated images against N
// real ones, beside the real-vs-real floor (train vs test images) and the untrained generator.
//   strata_dcgan --help
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <strata/data/idx.hpp>
#include <strata/strata.hpp>

#include "fashion_mnist_cnn_net.hpp"

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

struct Flags {
  int64_t epochs = 5, steps = 0, batch = 64, fid = 0, fid_train = 60000;
  uint64_t seed = 42;
  std::string images, out = "dcgan_out";
};

const char* kHelp =
    "strata_dcgan: DCGAN on Fashion-MNIST (Debian's dataset-fashion-mnist) or an image folder.\n"
    "  --epochs N    passes over the data (default 5)\n"
    "  --steps N     at most N batches per epoch, 0 = all (default 0)\n"
    "  --batch N     batch size (default 64)\n"
    "  --images DIR  train on the images in DIR and its sub-folders (gray, resized to 28x28)\n"
    "  --out DIR     where epoch_NNN.png sample grids and losses.png go (default dcgan_out)\n"
    "  --seed N      random seed (default 42)\n"
    "  --fid N       after training, Frechet distances on N images (Fashion-MNIST only; 0 = off)\n"
    "  --fid-train N train the feature classifier on the first N training images (default 60000)\n";

Flags parse(int argc, char** argv) {
  Flags f;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--help" || a == "-h") {
      std::fputs(kHelp, stdout);
      std::exit(0);
    }
    STRATA_CHECK(i + 1 < argc, "strata_dcgan: ", a, " needs a value (see --help)");
    const std::string v = argv[++i];
    if (a == "--epochs") f.epochs = std::stoll(v);
    else if (a == "--steps") f.steps = std::stoll(v);
    else if (a == "--batch") f.batch = std::stoll(v);
    else if (a == "--seed") f.seed = std::stoull(v);
    else if (a == "--images") f.images = v;
    else if (a == "--out") f.out = v;
    else if (a == "--fid") f.fid = std::stoll(v);
    else if (a == "--fid-train") f.fid_train = std::stoll(v);
    else throw Error("strata_dcgan: unknown flag " + a + " (see --help)");
  }
  STRATA_CHECK(f.epochs >= 1 && f.batch >= 2 && f.steps >= 0, "strata_dcgan: need --epochs >= 1, --batch >= 2, --steps >= 0");
  STRATA_CHECK(f.fid == 0 || (f.fid >= 2 && f.fid <= 10000 && f.fid_train >= 128 && f.images.empty()),
               "strata_dcgan: --fid needs 2 to 10000 images, --fid-train >= 128, and Fashion-MNIST (no --images)");
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
      all.push_back(data::resize(ex[0], 28, 28));
    u8 = stack(all, 0);
  }
  return cast(u8, kFloat32) / 127.5 - 1.0;
}

// The classifier's 256 penultimate features of images in [0, 1].
Tensor features(FashionMnistCnn& net, const Tensor& x01) {
  NoGradGuard no_grad;
  net.eval();
  return net.hidden(net.flatten(net.pool2(net.conv2(net.pool1(net.conv1(x01))))));
}

Tensor generated(GeneratorNet& g, int64_t n) {
  NoGradGuard no_grad;
  g.eval();
  return (g(randn({n, kNoise})) + 1.0) / 2.0;
}

// Trains the feature classifier, then prints the three distances.
void report_fid(GeneratorNet& trained, const Flags& f) {
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
}

}  // namespace

int main(int argc, char** argv) try {
  const Flags f = parse(argc, argv);
  manual_seed(f.seed);
  const Tensor images = load_images(f);
  const int64_t n = images.shape()[0];
  std::printf("%lld training images\n", static_cast<long long>(n));
  std::filesystem::create_directories(f.out);

  GeneratorNet g;
  DiscriminatorNet d;
  d(g(zeros({2, kNoise})));  // builds both networks' weights before the optimizers take them
  // DCGAN's Adam: lr 2e-4, beta1 0.5 (the default 0.9 makes the game oscillate).
  optim::Adam g_opt(g.trainable_weights(), {.lr = 2e-4, .beta1 = 0.5});
  optim::Adam d_opt(d.trainable_weights(), {.lr = 2e-4, .beta1 = 0.5});
  const Tensor fixed_z = randn({64, kNoise});
  std::map<std::string, std::vector<double>> curves;

  const int64_t per_epoch = f.steps > 0 ? std::min(f.steps, n / f.batch) : n / f.batch;
  for (int64_t epoch = 1; epoch <= f.epochs; ++epoch) {
    const Tensor order = randperm(n);
    double d_sum = 0, g_sum = 0;
    for (int64_t s = 0; s < per_epoch; ++s) {
      const Tensor real = index_select(images, 0, order.narrow(0, s * f.batch, f.batch));
      const Tensor fake = g(randn({f.batch, kNoise}));
      const Tensor ones = full({f.batch, 1}, 1.0), zero = zeros({f.batch, 1});
      // The discriminator on real and (detached) generated images.
      Tensor d_loss = binary_cross_entropy_with_logits(d(real), ones) +
                      binary_cross_entropy_with_logits(d(fake.detach()), zero);
      d_opt.zero_grad();
      d_loss.backward();
      d_opt.step();
      // The generator, through the updated discriminator, towards "real".
      Tensor g_loss = binary_cross_entropy_with_logits(d(fake), ones);
      g_opt.zero_grad();
      g_loss.backward();
      g_opt.step();
      d_sum += d_loss.item<double>();
      g_sum += g_loss.item<double>();
    }
    curves["d_loss"].push_back(d_sum / static_cast<double>(per_epoch));
    curves["g_loss"].push_back(g_sum / static_cast<double>(per_epoch));
    char name[32];
    std::snprintf(name, sizeof name, "epoch_%03lld.png", static_cast<long long>(epoch));
    {
      NoGradGuard no_grad;
      g.eval();  // batch norm on its moving statistics, so a sample does not depend on its batch
      data::save_images(g(fixed_z), (std::filesystem::path(f.out) / name).string(), 8, 8, 2);
      g.train();
    }
    data::save_curves(curves, (std::filesystem::path(f.out) / "losses.png").string());
    std::printf("epoch %lld: d_loss %.4f g_loss %.4f -> %s/%s\n", static_cast<long long>(epoch),
                curves["d_loss"].back(), curves["g_loss"].back(), f.out.c_str(), name);
  }
  if (f.fid > 0) report_fid(g, f);
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "%s\n", e.what());
  return 2;
}
