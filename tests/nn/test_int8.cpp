// int8 inference (nn/int8.hpp): each int8 layer against a float64 loop computed from the same
// quantised input and s8 weights; the prepared int8 ops the layers run; quantize_int8 on a small
// trained CNN against its float outputs; whole-model files and hub versions of a quantised model;
// bad options and hostile files.
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "nn/layer_check.hpp"
#include "strata/io/safetensors.hpp"
#include "strata/lifecycle/hub_models.hpp"
#include "strata/nn/int8.hpp"
#include "strata/ops/prepared.hpp"
#include "support/temp_dir.hpp"

namespace strata {
namespace {

using testing::expect_error;

// The u8 values an int8 layer computes with: clamp(round(x / scale) + zero_point, 0, 255).
std::vector<double> int8_quantised(const Tensor& x, double scale, int64_t zp) {
  std::vector<double> q;
  for (float v : contiguous(x).to_vector<float>())
    q.push_back(std::clamp<double>(std::nearbyint(v / static_cast<float>(scale)) + zp, 0, 255));
  return q;
}

// s8 weights (as float) and positive per-channel steps, given to an int8 layer.
void int8_set_weights(Tensor& W, Tensor& w_scale, Tensor& b, uint64_t seed) {
  Generator gen(seed);
  NoGradGuard no_grad;
  copy_(W, cast(randint(-127, 128, W.shape(), kInt64, &gen), kFloat32));
  copy_(w_scale, uniform(w_scale.shape(), 0.001, 0.02, kFloat32, &gen));
  if (b.defined()) copy_(b, uniform(b.shape(), -1, 1, kFloat32, &gen));
}

// |a - b| within float32 rounding of the scaled sum, element by element.
void int8_expect_close(const Tensor& got, const std::vector<double>& want) {
  const std::vector<float> g = contiguous(got).to_vector<float>();
  ASSERT_EQ(g.size(), want.size());
  for (size_t i = 0; i < g.size(); ++i) EXPECT_NEAR(g[i], want[i], 2e-6 * (1 + std::abs(want[i]))) << "element " << i;
}

struct Int8DenseCase {
  int64_t zero_point;
  bool relu, bias;
};

TEST(Int8LayerTest, DenseMatchesFloat64Reference) {
  for (const Int8DenseCase& c : std::vector<Int8DenseCase>{{0, false, true}, {17, true, true}, {200, false, false}}) {
    const int64_t in = 37, out = 19;
    const double scale = 0.03;
    nn::Int8Dense layer({.units = out,
                         .act = c.relu ? nn::Activation("relu") : nn::Activation(),
                         .use_bias = c.bias,
                         .input_scale = scale,
                         .input_zero_point = c.zero_point});
    const Tensor x = uniform({2, 3, in}, -3, 4);  // beyond the u8 range at both ends: clamped
    layer(x);                                     // builds (and packs the zero weights)
    int8_set_weights(layer.W, layer.w_scale, layer.b, 3 + c.zero_point);
    layer.repack();
    const Tensor y = layer(x);
    ASSERT_EQ(y.shape(), Shape({2, 3, out}));
    const std::vector<double> q = int8_quantised(x, scale, c.zero_point);
    const std::vector<float> W = layer.W.to_vector<float>(), s = layer.w_scale.to_vector<float>();
    const std::vector<float> b = c.bias ? layer.b.to_vector<float>() : std::vector<float>(out, 0.0f);
    std::vector<double> want;
    for (int64_t m = 0; m < 6; ++m)
      for (int64_t o = 0; o < out; ++o) {
        double acc = 0;
        for (int64_t i = 0; i < in; ++i) acc += (q[m * in + i] - c.zero_point) * W[i * out + o];
        const double v = scale * s[o] * acc + b[o];
        want.push_back(c.relu ? std::max(v, 0.0) : v);
      }
    int8_expect_close(y, want);
  }
}

struct Int8ConvCase {
  ConvOptions options;
  int64_t zero_point;
  bool relu;
};

// Output size and padding before, by conv2d's rules, written out again for the reference.
std::pair<int64_t, int64_t> int8_axis(int64_t in, int64_t k, const ConvOptions& o) {
  const int64_t s = o.stride[0], span = (k - 1) * o.dilation[0] + 1;
  if (o.padding.kind == Padding::Kind::same) {
    const int64_t out = (in + s - 1) / s;
    return {out, std::max<int64_t>((out - 1) * s + span - in, 0) / 2};
  }
  return {(in - span) / s + 1, 0};
}

TEST(Int8LayerTest, Conv2dMatchesFloat64Reference) {
  const std::vector<Int8ConvCase> cases = {
      {{.stride = {1}, .padding = Padding::same()}, 0, true},
      {{.stride = {2}, .padding = Padding::same()}, 90, false},  // padding stands for 0.0, not for u8 0
      {{.stride = {1}, .padding = Padding::valid(), .dilation = {2}}, 5, true},
  };
  for (const Int8ConvCase& c : cases) {
    const int64_t n = 2, h = 9, w = 8, ci = 5, co = 6, k = 3;
    const double scale = 0.02;
    nn::Int8Conv2d layer({.n_filter = co,
                          .filter_size = {k},
                          .act = c.relu ? nn::Activation("relu") : nn::Activation(),
                          .options = c.options,
                          .input_scale = scale,
                          .input_zero_point = c.zero_point});
    const Tensor x = uniform({n, h, w, ci}, -2, 3);
    layer(x);
    int8_set_weights(layer.W, layer.w_scale, layer.b, 11 + c.zero_point);
    layer.repack();
    const Tensor y = layer(x);
    const auto [oh, top] = int8_axis(h, k, c.options);
    const auto [ow, left] = int8_axis(w, k, c.options);
    ASSERT_EQ(y.shape(), Shape({n, oh, ow, co}));
    const std::vector<double> q = int8_quantised(x, scale, c.zero_point);
    const std::vector<float> W = layer.W.to_vector<float>(), s = layer.w_scale.to_vector<float>(),
                             b = layer.b.to_vector<float>();
    const int64_t stride = c.options.stride[0], dil = c.options.dilation[0];
    std::vector<double> want;
    for (int64_t bi = 0; bi < n; ++bi)
      for (int64_t r = 0; r < oh; ++r)
        for (int64_t col = 0; col < ow; ++col)
          for (int64_t o = 0; o < co; ++o) {
            double acc = 0;
            for (int64_t kr = 0; kr < k; ++kr)
              for (int64_t kc = 0; kc < k; ++kc) {
                const int64_t ir = r * stride + kr * dil - top, ic = col * stride + kc * dil - left;
                if (ir < 0 || ir >= h || ic < 0 || ic >= w) continue;  // padding: the real 0.0
                for (int64_t i = 0; i < ci; ++i)
                  acc += (q[((bi * h + ir) * w + ic) * ci + i] - c.zero_point) * W[((kr * k + kc) * ci + i) * co + o];
              }
            const double v = scale * s[o] * acc + b[o];
            want.push_back(c.relu ? std::max(v, 0.0) : v);
          }
    int8_expect_close(y, want);
  }
}

TEST(Int8LayerTest, BadOptionsAndWeightsAreRefused) {
  expect_error([] { nn::Int8Dense({.units = 4, .input_scale = 0.0}); }, {"input_scale"});
  expect_error([] { nn::Int8Dense({.units = 4, .input_zero_point = 256}); }, {"input_zero_point", "255"});
  expect_error([] { nn::Int8Conv2d({.n_filter = 4, .options = {.groups = 2}}); }, {"groups"});
  nn::Int8Dense layer({.units = 3}, "q");
  const Tensor x = rand({2, 4});
  layer(x);
  {
    NoGradGuard no_grad;
    copy_(layer.w_scale, tensor({0.1f, NAN, 0.1f}));
  }
  layer.repack();
  expect_error([&] { layer(x); }, {"q (int8_dense)", "w_scale[1]", "finite"});
  {
    NoGradGuard no_grad;
    copy_(layer.w_scale, tensor({0.1f, 0.1f, 0.1f}));
    copy_(layer.W, full({4, 3}, INFINITY));
  }
  layer.repack();
  expect_error([&] { layer(x); }, {"q (int8_dense)", "W[0]"});
  expect_error([&] { layer(cast(x, kFloat64)); }, {"float32"});
  // Non-finite inputs quantise to the ends of the u8 range (NaN to 0), never to undefined bytes.
  {
    NoGradGuard no_grad;
    copy_(layer.W, ones({4, 3}));
  }
  layer.repack();
  const Tensor odd = layer(tensor({NAN, INFINITY, -INFINITY, 0.0f}, {1, 4}));
  EXPECT_TRUE(allclose(odd, full({1, 3}, 0.1 * 1.0 * 255), 1e-6, 1e-5));  // input_scale 1: 0 + 255 + 0 + 0
}

// The layers run ops' prepared int8 ops (ops/prepared.hpp), one per input shape: the op called
// directly gives the layer's bits; int32 accumulation makes each image's output independent of
// the batch it came in (so a plan made for another shape is never reused); bad operands are
// refused by the op, naming them.
TEST(Int8LayerTest, PreparedInt8OpsAreWhatTheLayersRun) {
  const double scale = 0.02;
  nn::Int8Conv2d conv(
      {.n_filter = 6, .filter_size = {3}, .act = nn::Activation("relu"), .input_scale = scale, .input_zero_point = 40});
  const Tensor x = uniform({3, 7, 6, 4}, -1, 2);
  conv(x);
  int8_set_weights(conv.W, conv.w_scale, conv.b, 21);
  conv.repack();
  const Tensor y = conv(x);
  ops::PreparedOp op =
      ops::prepare_int8_conv2d(x.shape(), conv.W, conv.w_scale, conv.b, conv.options().options, scale, 40, "relu");
  ASSERT_EQ(op.output_shape(), y.shape());
  Tensor direct = Tensor::empty(op.output_shape());
  op.run(x, direct);
  EXPECT_TRUE(allclose(direct, y, 0, 0));       // exactly
  const Tensor one = conv(narrow(x, 0, 1, 1));  // a second shape: its own plan
  EXPECT_TRUE(allclose(one, narrow(y, 0, 1, 1), 0, 0));
  EXPECT_TRUE(allclose(conv(x), y, 0, 0));  // the first plan again
  expect_error([&] { op.run(narrow(x, 0, 0, 2).contiguous(), direct); }, {"prepared op", "input", "[3, 7, 6, 4]"});

  const Tensor w = conv.W, s = conv.w_scale, b = conv.b;
  const ConvOptions same{.padding = Padding::same()};
  expect_error([&] { ops::prepare_int8_conv2d(x.shape(), w, s, b, same, 0.0, 0, ""); }, {"input_scale", "> 0"});
  expect_error([&] { ops::prepare_int8_conv2d(x.shape(), w, s, b, same, scale, 256, ""); }, {"input_zero_point"});
  expect_error([&] { ops::prepare_int8_conv2d(x.shape(), w, s, b, same, scale, 0, "tanh"); }, {"'tanh'", "relu"});
  expect_error([&] { ops::prepare_int8_conv2d(x.shape(), w, s, b, {.groups = 2}, scale, 0, ""); }, {"groups"});
  expect_error([&] { ops::prepare_int8_conv2d(x.shape(), w, narrow(s, 0, 0, 5), b, same, scale, 0, ""); },
               {"prepare_int8_conv2d", "w_scale", "[6]"});
  expect_error(
      [&] {
        ops::prepare_int8_linear({2, 5}, zeros({4, 3}), ones({3}), Tensor(), scale, 0, "");
      },
      {"prepare_int8_linear", "4 input features"});
  expect_error(
      [&] {
        ops::prepare_int8_linear({2, 4}, zeros({4, 3}), ones({3}), full({3}, NAN), scale, 0, "");
      },
      {"prepare_int8_linear", "b[0]", "finite"});
}

// A small CNN trained to tell whether an image's left half is brighter than its right half.
struct Int8Trained {
  std::shared_ptr<nn::Model> net;
  std::vector<Tensor> batches;
  Tensor test_images;
};

std::pair<Tensor, Tensor> int8_halves_batch(int64_t n, Generator& gen) {
  Tensor images = uniform({n, 8, 8, 1}, 0, 1, kFloat32, &gen);
  const Tensor left = mean(narrow(images, 2, 0, 4), {1, 2, 3}), right = mean(narrow(images, 2, 4, 4), {1, 2, 3});
  return {images, cast(left > right, kInt64)};
}

Int8Trained int8_trained_cnn() {
  manual_seed(5);
  auto x = nn::Input({-1, 8, 8, 1}, "image");
  auto h = nn::MaxPool2d()(nn::Conv2d(8, {3, 3}, "relu")(x));
  h = nn::Flatten()(nn::Conv2d(8, {3, 3}, "relu")(h));
  h = nn::Dense(16, "relu")(h);
  Int8Trained t{std::make_shared<nn::Model>(x, nn::Dense(2)(h), "halves"), {}, {}};
  Generator gen(9);
  optim::Adam adam(t.net->trainable_weights(), {.lr = 0.01});
  for (int step = 0; step < 150; ++step) {
    auto [images, labels] = int8_halves_batch(32, gen);
    adam.zero_grad();
    cross_entropy(t.net->run({images})[0], labels).backward();
    adam.step();
  }
  t.net->eval();
  for (int i = 0; i < 4; ++i) t.batches.push_back(int8_halves_batch(32, gen).first);
  t.test_images = int8_halves_batch(256, gen).first;
  return t;
}

TEST(Int8QuantizeTest, TrainedCnnKeepsItsOutputs) {
  Int8Trained t = int8_trained_cnn();
  for (nn::Calibration method : {nn::Calibration::min_max, nn::Calibration::percentile}) {
    nn::QuantizedModel q = nn::quantize_int8(*t.net, t.batches, {.method = method, .percentile = 99.9});
    ASSERT_EQ(q.layers.size(), 4u);
    for (const auto& r : q.layers) EXPECT_TRUE(r.quantized) << q.report();
    EXPECT_EQ(q.model->get_layer(0).kind(), "int8_conv2d");
    EXPECT_EQ(q.model->get_layer(q.layers[3].name).kind(), "int8_dense");
    NoGradGuard no_grad;
    const Tensor want = t.net->run({t.test_images})[0], got = q.model->run({t.test_images})[0];
    // The int8 logits stay within a few percent of the float ones (inputs beyond the calibrated
    // range are clipped, so the largest error is not the measure); the decisions agree.
    const double size = mean(abs(want)).item<double>(), error = mean(abs(got - want)).item<double>();
    EXPECT_LT(error, 0.03 * size) << q.report();
    const double agree = mean(cast(argmax(got, 1) == argmax(want, 1), kFloat32)).item<double>();
    EXPECT_GT(agree, 0.97);
  }
}

TEST(Int8QuantizeTest, PercentileRangesLieInsideMinMax) {
  Int8Trained t = int8_trained_cnn();
  const auto min_max = nn::quantize_int8(*t.net, t.batches);
  const auto pct = nn::quantize_int8(*t.net, t.batches, {.method = nn::Calibration::percentile, .percentile = 99});
  for (size_t i = 0; i < min_max.layers.size(); ++i) {
    EXPECT_LE(pct.layers[i].input_max, min_max.layers[i].input_max);
    EXPECT_LT(pct.layers[i].input_scale, min_max.layers[i].input_scale) << pct.report();
  }
  // The image's pixels lie in [0, 1): zero point 0, step about 1 / 255.
  EXPECT_EQ(min_max.layers[0].input_zero_point, 0);
  EXPECT_NEAR(min_max.layers[0].input_scale, 1.0 / 255, 1e-4);
}

TEST(Int8QuantizeTest, LayersThatCannotBeQuantisedStayFloatAndSaySo) {
  auto x = nn::Input({-1, 6, 6, 4});
  auto h = nn::Conv2d({.n_filter = 4, .filter_size = {3}, .options = {.padding = Padding::same(), .groups = 2}},
                      "grouped")(x);
  nn::Dense shared(8, "relu", "shared");
  h = shared(shared(nn::Dense(8, "relu", "first")(nn::Flatten()(h))));
  nn::Model net(x, h, "mixed");
  net.eval();
  const auto q = nn::quantize_int8(net, {randn({4, 6, 6, 4})});
  std::map<std::string, const nn::LayerQuantization*> by_name;
  for (const auto& r : q.layers) by_name[r.name] = &r;
  ASSERT_EQ(by_name.size(), 3u);
  EXPECT_NE(by_name["grouped"]->reason.find("groups 2"), std::string::npos);
  EXPECT_NE(by_name["shared"]->reason.find("called 2 times"), std::string::npos);
  EXPECT_TRUE(by_name["first"]->quantized);
  EXPECT_EQ(q.model->get_layer("grouped").kind(), "conv2d");
  EXPECT_NE(q.report().find("shared (dense): kept float32"), std::string::npos);
  const Tensor in = randn({2, 6, 6, 4});
  NoGradGuard no_grad;
  EXPECT_EQ(q.model->run({in})[0].shape(), Shape({2, 8}));
}

TEST(Int8QuantizeTest, BadArgumentsAreRefused) {
  Int8Trained t = int8_trained_cnn();
  expect_error([&] { nn::quantize_int8(*t.net, {}); }, {"no calibration batches"});
  expect_error([&] { nn::quantize_int8(*t.net, t.batches, {.percentile = 30}); }, {"percentile", "30"});
  expect_error([&] { nn::quantize_int8(*t.net, t.batches, {.num_batches = -1}); }, {"num_batches"});
}

using Int8FileTest = testing::TempDirTest;

TEST_F(Int8FileTest, QuantisedModelSavesWholeToFileAndHub) {
  Int8Trained t = int8_trained_cnn();
  const auto q = nn::quantize_int8(*t.net, t.batches);
  NoGradGuard no_grad;
  const Tensor want = q.model->run({t.test_images})[0];
  q.model->save(path("int8.safetensors"));
  auto loaded = nn::Model::load(path("int8.safetensors"));
  EXPECT_EQ(loaded->to_json(), q.model->to_json());
  EXPECT_TRUE(allclose(loaded->run({t.test_images})[0], want, 0, 0));
  auto hub = hub::Hub::open(path("hub.db"));
  const int64_t version = lifecycle::save_model(hub, "halves_int8", *q.model);
  auto from_hub = lifecycle::load_static_model(hub, "halves_int8", version).model;
  from_hub->eval();
  EXPECT_TRUE(allclose(from_hub->run({t.test_images})[0], want, 0, 0));
}

TEST_F(Int8FileTest, HostileFilesAreRefused) {
  Int8Trained t = int8_trained_cnn();
  const auto q = nn::quantize_int8(*t.net, t.batches);
  const std::string name = q.layers[1].name;  // the second convolution
  auto write_with = [&](const std::string& file, const Tensor& w_scale) {
    io::NamedTensors weights;
    for (auto& [n, w] : q.model->named_weights()) weights.emplace_back(n, n == name + "/w_scale" ? w_scale : w);
    io::save_safetensors(path(file), weights, {{"strata.model", q.model->to_json()}});
  };
  write_with("nan.safetensors", full({8}, NAN));
  auto nan_model = nn::Model::load(path("nan.safetensors"));
  expect_error([&] { nan_model->run({t.test_images}); }, {name, "w_scale[0]", "finite and > 0"});
  write_with("negative.safetensors", full({8}, -0.5));
  expect_error([&] { nn::Model::load(path("negative.safetensors"))->run({t.test_images}); }, {"w_scale[0]"});
  write_with("short.safetensors", full({7}, 0.5));
  expect_error([&] { nn::Model::load(path("short.safetensors")); }, {"short.safetensors", "other shapes"});
  // An architecture whose quantisation step is out of bounds.
  std::string architecture = q.model->to_json();
  const std::string key = "\"input_scale\":";
  architecture.insert(architecture.find(key) + key.size(), "-");
  expect_error([&] { nn::Model::from_json(architecture); }, {"input_scale"});
}

}  // namespace
}  // namespace strata
