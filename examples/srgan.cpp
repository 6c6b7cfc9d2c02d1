// SRGAN (Ledig et al.; TensorLayer's srgan): 4x super-resolution of photographs. First SRResNet,
// pre-trained with the pixel MSE; then SRGAN: the same generator, from those weights, trained
// against a discriminator with a content loss on a feature network's activations. The feature
// network is VGG19's conv5_4 when the user has Keras's VGG19 weights (--vgg19 vgg19.h5), and
// otherwise a small CNN trained here first to tell which training photograph a crop is from
// (no labels needed; telling rotations apart, RotNet's task, stayed at chance in 300 steps). Data: the photographs of Debian's python3-skimage (or --images DIR),
// random HR crops, their LR made by bicubic shrinking; the held-out photographs give the
// quality figure: PSNR / SSIM on luma against bicubic upscaling, and a PNG strip per image
// (low-res, bicubic, SRResNet, SRGAN, truth). The run and both generators go into the hub.
//   strata_srgan --help
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <numbers>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <strata/interop/pretrained.hpp>
#include <strata/nn/zoo/vgg_module.hpp>
#include <strata/strata.hpp>
#include <strata/vision/image.hpp>
#include <strata/viz/visualize.hpp>

#include "flag_checks.hpp"

using namespace strata;

namespace {

const char* kSkimageData = "/usr/lib/python3/dist-packages/skimage/data";
// python3-skimage's colour photographs (public domain or CC0, see docs/examples.md): four to
// train on, two held out (a cat, a coffee cup: neither subject is in the training set).
const std::vector<std::string> kTrainPhotos = {"astronaut.png", "motorcycle_left.png", "motorcycle_right.png",
                                               "rocket.jpg"};
const std::vector<std::string> kHeldOutPhotos = {"chelsea.png", "coffee.png"};

struct Flags {
  int64_t scale = 4, crop = 64, batch = 16, blocks = 6, channels = 32;
  int64_t pretrain_steps = 1200, gan_steps = 150, feature_steps = 200, strip = 96;
  double lr = 1e-3, gan_lr = 1e-4, content_weight = 1e-2, adv_weight = 1e-3;
  uint64_t seed = 42;
  std::string images, held_out, vgg19, out = "srgan_out", hub = "srgan.db", pixel_loss = "mse";
};

// The flags, parsed by CLI11 (--help lists them with their defaults).
Flags parse(int argc, char** argv) {
  Flags f;
  CLI::App app("strata_srgan: SRResNet, then SRGAN, 4x super-resolution of photographs (python3-skimage's).");
  app.add_option("--images", f.images, "train on the images in DIR (default: 4 python3-skimage photographs)");
  app.add_option("--held-out", f.held_out, "measure on the images in DIR (default: python3-skimage's chelsea, coffee)");
  app.add_option("--scale", f.scale, "upscaling factor")->check(CLI::IsMember({2, 4}))->capture_default_str();
  app.add_option("--crop", f.crop, "HR crop side, a multiple of scale")->capture_default_str();
  app.add_option("--batch", f.batch, "crops per step")->check(CLI::Range(2, 1024))->capture_default_str();
  app.add_option("--blocks", f.blocks, "residual blocks")->check(CLI::Range(1, 64))->capture_default_str();
  app.add_option("--channels", f.channels, "feature maps")->check(CLI::Range(4, 512))->capture_default_str();
  app.add_option("--pretrain-steps", f.pretrain_steps, "SRResNet steps on the pixel loss")->check(flag_checks::at_least(1))->capture_default_str();
  app.add_option("--pixel-loss", f.pixel_loss, "SRResNet's loss: mse (the paper's) or l1 (EDSR's; here it stalls at bicubic, docs/examples.md)")
      ->check(CLI::IsMember({"mse", "l1"}))->capture_default_str();
  app.add_option("--gan-steps", f.gan_steps, "SRGAN steps")->check(flag_checks::at_least(0))->capture_default_str();
  app.add_option("--feature-steps", f.feature_steps, "steps of the photograph classifier (the feature network)")
      ->check(flag_checks::at_least(0))->capture_default_str();
  app.add_option("--vgg19", f.vgg19, "content loss on VGG19 conv5_4 from this Keras weight file instead");
  app.add_option("--lr", f.lr, "Adam learning rate of SRResNet (cosine decay to 0 over its steps)")->capture_default_str();
  app.add_option("--gan-lr", f.gan_lr, "Adam learning rate of SRGAN's two networks")->capture_default_str();
  app.add_option("--content-weight", f.content_weight, "weight of the feature (content) loss")->capture_default_str();
  app.add_option("--adv-weight", f.adv_weight, "weight of the adversarial loss")->capture_default_str();
  app.add_option("--strip", f.strip, "side of the HR window shown per held-out image")->capture_default_str();
  app.add_option("--out", f.out, "where strip.png goes")->capture_default_str();
  app.add_option("--hub", f.hub, "the hub for the run and the models")->capture_default_str();
  app.add_option("--seed", f.seed, "random seed")->capture_default_str();
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    std::exit(app.exit(e));
  }
  STRATA_CHECK(f.crop >= 4 * f.scale && f.crop % f.scale == 0 && f.strip % f.scale == 0 && f.strip >= f.scale,
               "strata_srgan: --crop and --strip must be multiples of --scale (crop at least 4 x scale)");
  return f;
}

// conv - PReLU - conv, added to the input (SRResNet's block, without batch norm as in EDSR: at
// these batch sizes it only adds noise).
struct ResidualBlock : nn::Module {
  explicit ResidualBlock(int64_t ch) : conv1(ch), conv2(ch) {}
  nn::Conv2d conv1, conv2;
  nn::PRelu act;
  Tensor forward(const Tensor& x) override { return x + conv2(act(conv1(x))); }
};

// conv to 4x the channels, then the sub-pixel shuffle: 2x the resolution.
struct Upsample : nn::Module {
  explicit Upsample(int64_t ch) : conv(4 * ch) {}
  nn::Conv2d conv;
  nn::SubpixelConv2d shuffle{2};
  nn::PRelu act;
  Tensor forward(const Tensor& x) override { return act(shuffle(conv(x))); }
};

// LR [N, h, w, 3] in [0, 1] -> HR [N, h*scale, w*scale, 3] (unclamped). Unlike the paper's,
// the output adds the bicubic upscaling of the input (a global skip, as VDSR's; a constant for
// the gradients): the network learns the missing detail only, which a run of minutes on two
// cores can.
struct SRResNet : nn::Module {
  SRResNet(const Flags& f) : head(f.channels, {9, 9}), body_end(f.channels) {
    for (int64_t b = 0; b < f.blocks; ++b) blocks.push_back(std::make_unique<ResidualBlock>(f.channels));
    for (int64_t s = f.scale; s > 1; s /= 2) ups.push_back(std::make_unique<Upsample>(f.channels));
  }
  nn::Conv2d head;
  nn::PRelu head_act;
  std::vector<std::unique_ptr<ResidualBlock>> blocks;
  nn::Conv2d body_end;
  std::vector<std::unique_ptr<Upsample>> ups;
  nn::Conv2d tail{3, {9, 9}};
  Tensor forward(const Tensor& x) override {
    Tensor h = head_act(head(x)), r = h;
    for (auto& b : blocks) r = (*b)(r);
    h = h + body_end(r);
    for (auto& u : ups) h = (*u)(h);
    return tail(h) + vision::resize_bicubic(x.detach(), h.size(1), h.size(2));
  }
};

// SRGAN's discriminator, narrower: strided convs with batch norm and leaky ReLU -> one logit.
struct Discriminator : nn::Module {
  nn::Conv2d c1{32}, c2{32, {3, 3}, {}, nn::same_padding(2)}, c3{64}, c4{64, {3, 3}, {}, nn::same_padding(2)},
      c5{128, {3, 3}, {}, nn::same_padding(2)};
  nn::BatchNorm2d b2, b3, b4, b5;
  nn::GlobalMeanPool2d pool;
  nn::Dense out{1};
  Tensor forward(const Tensor& x) override {
    Tensor h = leaky_relu(c1(x), 0.2);
    h = leaky_relu(b3(c3(leaky_relu(b2(c2(h)), 0.2))), 0.2);
    return out(pool(leaky_relu(b5(c5(leaky_relu(b4(c4(h)), 0.2))), 0.2)));
  }
};

// The feature network trained here: which training photograph a 32x32 crop is from; features()
// are its last conv activations (half resolution, any input size): the content loss compares them.
struct PhotoNet : nn::Module {
  explicit PhotoNet(int64_t photos) : out(photos) {}
  nn::Conv2d c1{32}, c2{32}, c3{64}, c4{64};
  nn::MaxPool2d pool;
  nn::Flatten flatten;
  nn::Dense out;
  Tensor features(const Tensor& x) { return relu(c4(relu(c3(pool(relu(c2(relu(c1(x - 0.5))))))))); }
  Tensor forward(const Tensor& x) override { return out(flatten(pool(features(x)))); }
};

std::vector<Tensor> read_photos(const std::string& dir, const std::vector<std::string>& defaults) {
  std::vector<Tensor> photos;
  if (dir.empty()) {
    for (const auto& name : defaults) photos.push_back(data::read_image(std::string(kSkimageData) + "/" + name, 3));
  } else {
    for (const data::Example& ex : data::image_files(dir, {.channels = 3}, true).dataset()) photos.push_back(ex[0]);
  }
  return photos;
}

// A batch of random uint8 crops [n, side, side, 3], each from a random photograph, in one of the
// square's 8 symmetries (a quarter turn k times, maybe mirrored), as EDSR augments: with four
// training photographs the turns are most of the variety the network sees.
Tensor random_crops(const std::vector<Tensor>& photos, int64_t n, int64_t side) {
  std::vector<Tensor> crops;
  for (int64_t i = 0; i < n; ++i) {
    const Tensor& p = photos[randint(0, static_cast<int64_t>(photos.size()), {1}).item<int64_t>()];
    STRATA_CHECK(p.size(0) >= side && p.size(1) >= side, "strata_srgan: an image of shape ", p.shape().str(),
                 " is smaller than the ", side, "x", side, " crop");
    Tensor c = vision::random_crop(p, side, side);
    c = vision::rot90(c, static_cast<int>(randint(0, 4, {1}).item<int64_t>()));
    crops.push_back(randint(0, 2, {1}).item<int64_t>() ? vision::flip_left_right(c) : c);
  }
  return stack(crops, 0);
}

Tensor unit(const Tensor& u8) { return cast(u8, kFloat32) / 255.0; }
Tensor to_u8(const Tensor& x) { return cast(round(clamp(x, 0.0, 1.0) * 255.0), kUInt8); }

// The content loss's feature map of images in [0, 1]: VGG19 (Keras's caffe preprocessing:
// BGR, 0..255, ImageNet means subtracted) or the photograph classifier.
struct Features {
  std::unique_ptr<nn::zoo::VGG> vgg;
  std::unique_ptr<PhotoNet> own;
  double own_scale = 1;  // the classifier's RMS activation on photographs, divided out
  Tensor operator()(const Tensor& x) {
    if (!vgg) return own->features(x) / own_scale;
    const Tensor bgr = flip(x, {3}) * 255.0 - tensor({103.939f, 116.779f, 123.68f});
    return (*vgg)(bgr) / 12.75;  // SRGAN's rescaling of the VGG features
  }
};

Features make_features(const Flags& f, const std::vector<Tensor>& photos) {
  Features feat;
  if (!f.vgg19.empty()) {
    feat.vgg = std::make_unique<nn::zoo::VGG>(19, "conv5_4");
    (*feat.vgg)(zeros({1, 32, 32, 3}));            // builds the layers, so that the weights exist to load
    interop::load_pretrained(*feat.vgg, f.vgg19);  // Keras's block<b>_conv<c> names included
    feat.vgg->eval();
    std::printf("feature network: VGG19 up to conv5_4, %zu weights from %s\n", feat.vgg->all_weights().size(),
                f.vgg19.c_str());
    return feat;
  }
  const auto n = static_cast<int64_t>(photos.size());
  feat.own = std::make_unique<PhotoNet>(n);
  PhotoNet& net = *feat.own;
  net(zeros({2, 32, 32, 3}));
  optim::Adam adam(net.trainable_weights(), {.lr = 1e-3});
  double accuracy = 0;
  for (int64_t s = 1; s <= f.feature_steps; ++s) {
    const Tensor k = randint(0, n, {64});
    std::vector<Tensor> crops;
    for (int64_t i : k.to_vector<int64_t>()) crops.push_back(random_crops({photos[i]}, 1, 32));
    const Tensor logits = net(unit(concat(crops, 0)));
    Tensor loss = cross_entropy(logits, k);
    adam.zero_grad();
    loss.backward();
    adam.step();
    accuracy = 0.95 * accuracy + 0.05 * mean(cast(eq(argmax(logits, 1), k), kFloat32)).item<double>();
  }
  net.eval();
  // Scaled so that the content loss is a relative error, of the order of SRGAN's rescaled VGG loss.
  NoGradGuard no_grad;
  feat.own_scale = std::sqrt(mean(square(net.features(unit(random_crops(photos, 64, f.crop))))).item<double>()) + 1e-12;
  std::printf("feature network: photograph accuracy %.3f (running mean) after %lld steps, RMS activation %.4f\n",
              accuracy, static_cast<long long>(f.feature_steps), feat.own_scale);
  return feat;
}

struct HeldOut {
  Tensor hr, lr, bicubic;  // uint8 HWC; hr cut to a multiple of the scale
};

std::vector<HeldOut> held_out_set(const Flags& f) {
  std::vector<HeldOut> set;
  for (const Tensor& p : read_photos(f.held_out, kHeldOutPhotos)) {
    const int64_t h = p.size(0) / f.scale * f.scale, w = p.size(1) / f.scale * f.scale;
    HeldOut e;
    e.hr = contiguous(p.narrow(0, 0, h).narrow(1, 0, w));
    e.lr = vision::resize_bicubic(e.hr, h / f.scale, w / f.scale);
    e.bicubic = vision::resize_bicubic(e.lr, h, w);
    set.push_back(e);
  }
  return set;
}

struct Quality {
  double psnr = 0, ssim = 0;
};

// Mean PSNR / SSIM on luma over the held-out images, with `scale` border pixels shaved (as
// SRGAN's paper measures).
Quality quality(const std::vector<Tensor>& outputs, const std::vector<HeldOut>& set, int64_t shave) {
  Quality q;
  for (size_t i = 0; i < set.size(); ++i) {
    auto inner = [&](const Tensor& t) {
      return data::rgb_to_luma(t).narrow(0, shave, t.size(0) - 2 * shave).narrow(1, shave, t.size(1) - 2 * shave);
    };
    q.psnr += data::psnr(inner(outputs[i]), inner(set[i].hr), 255) / static_cast<double>(set.size());
    q.ssim += data::ssim(inner(outputs[i]), inner(set[i].hr), 255) / static_cast<double>(set.size());
  }
  return q;
}

std::vector<Tensor> super_resolve(SRResNet& g, const std::vector<HeldOut>& set) {
  NoGradGuard no_grad;
  std::vector<Tensor> out;
  for (const HeldOut& e : set) out.push_back(select(to_u8(g(unit(e.lr).unsqueeze(0))), 0, 0));
  return out;
}

void report(hub::Run& run, const char* name, const Quality& q, int64_t step) {
  std::printf("%-9s PSNR %.2f dB  SSIM %.4f\n", name, q.psnr, q.ssim);
  run.log(step, hub::Split::test, {{std::string(name) + "_psnr", q.psnr}, {std::string(name) + "_ssim", q.ssim}});
}

}  // namespace

int main(int argc, char** argv) try {
  const Flags f = parse(argc, argv);
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // progress lines show as they come, also in a log file
  manual_seed(f.seed);
  const std::vector<Tensor> photos = read_photos(f.images, kTrainPhotos);
  const std::vector<HeldOut> held_out = held_out_set(f);
  std::printf("%zu training photographs, %zu held out\n", photos.size(), held_out.size());
  std::filesystem::create_directories(f.out);
  hub::Hub store = hub::Hub::open(f.hub);
  hub::Run run = store.create_run("srgan", nlohmann::json({{"scale", f.scale}, {"crop", f.crop}, {"batch", f.batch},
                                                          {"blocks", f.blocks}, {"channels", f.channels},
                                                          {"pretrain_steps", f.pretrain_steps}, {"gan_steps", f.gan_steps},
                                                          {"features", f.vgg19.empty() ? "photo_net" : "vgg19"}})
                                                .dump());
  // A batch of (LR in [0, 1], HR in [0, 1]) crops.
  auto batch = [&] {
    const Tensor hr = random_crops(photos, f.batch, f.crop);
    return std::pair{unit(vision::resize_bicubic(hr, f.crop / f.scale, f.crop / f.scale)), unit(hr)};
  };

  // The feature network first: a bad --vgg19 file fails before any training.
  Features features = make_features(f, photos);

  // Stage 1: SRResNet on the pixel loss (MSE, or L1 as EDSR trains).
  SRResNet g(f);
  g(zeros({1, 8, 8, 3}));
  optim::Adam g_opt(g.trainable_weights(), {.lr = f.lr});
  for (int64_t s = 1; s <= f.pretrain_steps; ++s) {
    // Cosine decay from --lr to 0 (SGDR's annealing, without restarts): large steps while the loss falls
    // fast, then ever smaller ones, so the last steps average out the batch noise that the pixel
    // MSE (hence PSNR) is most sensitive to, without the jump of a step schedule.
    g_opt.set_learning_rate(0.5 * f.lr * (1 + std::cos(std::numbers::pi * static_cast<double>(s - 1) / static_cast<double>(f.pretrain_steps))));
    const auto [lr, hr] = batch();
    const Tensor sr = g(lr);
    Tensor loss = f.pixel_loss == "l1" ? l1_loss(sr, hr) : mse_loss(sr, hr);
    g_opt.zero_grad();
    loss.backward();
    g_opt.step();
    run.log(s, hub::Split::train, f.pixel_loss, loss.item<double>());
    if (s % 100 == 0 || s == f.pretrain_steps)
      std::printf("srresnet step %lld: %s %.5f\n", static_cast<long long>(s), f.pixel_loss.c_str(), loss.item<double>());
  }
  std::vector<Tensor> bicubic;
  for (const HeldOut& e : held_out) bicubic.push_back(e.bicubic);
  report(run, "bicubic", quality(bicubic, held_out, f.scale), f.pretrain_steps);
  const std::vector<Tensor> srresnet = super_resolve(g, held_out);
  const Quality q_srresnet = quality(srresnet, held_out, f.scale);
  report(run, "srresnet", q_srresnet, f.pretrain_steps);
  store.save_model("srresnet", g.named_weights(), {.architecture = "SRResNet", .metrics = {{"psnr", q_srresnet.psnr}}, .run_id = run.id()});

  // Stage 2: SRGAN: the pixel MSE (kept, as ESRGAN does: a feature network trained in minutes
  // leaves colours and flat areas free) plus the content loss on the features plus the
  // adversarial loss.
  Discriminator d;
  d(zeros({2, f.crop, f.crop, 3}));
  optim::Adam d_opt(d.trainable_weights(), {.lr = f.gan_lr, .beta1 = 0.9});
  optim::Adam gan_opt(g.trainable_weights(), {.lr = f.gan_lr});
  const Tensor ones = full({f.batch, 1}, 1.0), zero = zeros({f.batch, 1});
  for (int64_t s = 1; s <= f.gan_steps; ++s) {
    const auto [lr, hr] = batch();
    const Tensor fake = g(lr);
    Tensor d_loss = binary_cross_entropy_with_logits(d(hr), ones) + binary_cross_entropy_with_logits(d(fake.detach()), zero);
    d_opt.zero_grad();
    d_loss.backward();
    d_opt.step();
    Tensor content = mse_loss(features(fake), features(hr).detach());
    Tensor adversarial = binary_cross_entropy_with_logits(d(fake), ones);
    Tensor pixel = mse_loss(fake, hr);
    Tensor g_loss = pixel + f.content_weight * content + f.adv_weight * adversarial;
    gan_opt.zero_grad();
    g_loss.backward();
    gan_opt.step();
    const int64_t step = f.pretrain_steps + s;
    run.log(step, hub::Split::train,
            {{"d_loss", d_loss.item<double>()}, {"mse", pixel.item<double>()}, {"content", content.item<double>()},
             {"adversarial", adversarial.item<double>()}});
    if (s % 50 == 0 || s == f.gan_steps)
      std::printf("srgan step %lld: d_loss %.4f mse %.5f content %.5f adversarial %.4f\n", static_cast<long long>(s),
                  d_loss.item<double>(), pixel.item<double>(), content.item<double>(), adversarial.item<double>());
  }
  const std::vector<Tensor> srgan = super_resolve(g, held_out);
  const Quality q_srgan = quality(srgan, held_out, f.scale);
  report(run, "srgan", q_srgan, f.pretrain_steps + f.gan_steps);
  store.save_model("srgan", g.named_weights(), {.architecture = "SRResNet", .metrics = {{"psnr", q_srgan.psnr}}, .run_id = run.id()});

  // The strip: per held-out image, a central window: low-res (nearest, to size), bicubic,
  // SRResNet, SRGAN, truth.
  std::vector<Tensor> cells;
  for (size_t i = 0; i < held_out.size(); ++i) {
    const HeldOut& e = held_out[i];
    const int64_t side = std::min({f.strip, e.hr.size(0), e.hr.size(1)}) / f.scale * f.scale;
    const int64_t top = (e.hr.size(0) - side) / 2 / f.scale * f.scale, left = (e.hr.size(1) - side) / 2 / f.scale * f.scale;
    auto window = [&](const Tensor& t, int64_t k) { return t.narrow(0, top / k, side / k).narrow(1, left / k, side / k); };
    cells.push_back(vision::resize(contiguous(window(e.lr, f.scale)), side, side, vision::Interpolation::nearest));
    for (const Tensor* t : {&e.bicubic, &srresnet[i], &srgan[i], &e.hr}) cells.push_back(contiguous(window(*t, 1)));
  }
  const std::string strip = (std::filesystem::path(f.out) / "strip.png").string();
  viz::save_images(stack(cells, 0), strip, static_cast<int64_t>(held_out.size()), 5, 2);
  run.finish();
  std::printf("strip (low-res / bicubic / SRResNet / SRGAN / truth) -> %s; run %lld and models srresnet, srgan in %s\n",
              strip.c_str(), static_cast<long long>(run.id()), f.hub.c_str());
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "%s\n", e.what());
  return 2;
}
