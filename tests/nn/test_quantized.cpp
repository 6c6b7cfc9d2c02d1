// Quantised layers (and, last, the new layers of issue 7 in a static model): each forward equals the layer computed with weights (and inputs) quantised
// by an independent loop, and gradients pass straight through the quantiser.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>

#include "nn/layer_check.hpp"

namespace strata {
namespace {

using testing_nn::expect_error;
using testing_nn::expect_same_as;

// x with f applied to every element, as a constant (no history).
Tensor map_values(const Tensor& x, const std::function<double(double)>& f) {
  std::vector<double> v = contiguous(x.detach()).to_vector<double>();
  for (double& e : v) e = f(e);
  return cast(from_vector(v, x.shape()), x.dtype());
}

// Forward: the constant q; gradient: the identity's w.r.t. x (what a straight-through estimator must give).
Tensor identity_grad(const Tensor& x, const Tensor& q) { return x - x.detach() + q; }

double sgn(double v) { return v > 0 ? 1.0 : (v < 0 ? -1.0 : 0.0); }

// Loop references of the quantisers.
Tensor ternary_loop(const Tensor& w) {
  std::vector<double> v = contiguous(w.detach()).to_vector<double>();
  double abs_sum = 0;
  for (double e : v) abs_sum += std::abs(e);
  const double t = 0.7 * abs_sum / static_cast<double>(v.size());
  double above_sum = 0, count = 0;
  for (double e : v)
    if (std::abs(e) > t) above_sum += std::abs(e), ++count;
  const double alpha = above_sum / count;
  return map_values(w, [&](double e) { return e > t ? alpha : (e < -t ? -alpha : 0.0); });
}
double round_half_even(double v) { return std::nearbyint(v); }
Tensor dorefa_weight_loop(const Tensor& w, int bits) {
  if (bits == 1) {
    std::vector<double> v = contiguous(w.detach()).to_vector<double>();
    double e = 0;
    for (double x : v) e += std::abs(x);
    e /= static_cast<double>(v.size());
    return map_values(w, [e](double x) { return sgn(x) * e; });
  }
  const double n = std::pow(2.0, bits) - 1;
  return map_values(w, [n](double x) {
    return 2 * round_half_even(std::clamp(x * 0.5 + 0.5, 0.0, 1.0) * n) / n - 1;
  });
}
Tensor dorefa_activation_loop(const Tensor& x, int bits) {
  const double n = std::pow(2.0, bits) - 1;
  return map_values(x, [n](double v) { return round_half_even(std::min(std::abs(v), 1.0) * n) / n; });
}
Tensor min_max_loop(const Tensor& x, int bits) {
  std::vector<double> v = contiguous(x.detach()).to_vector<double>();
  const double lo = *std::min_element(v.begin(), v.end()), hi = *std::max_element(v.begin(), v.end());
  const double step = (hi - lo) / (std::pow(2.0, bits) - 1);
  return map_values(x, [=](double e) { return round_half_even((e - lo) / step) * step + lo; });
}

// A plain matrix product by loops: x [n, k] · w [k, m] + b.
Tensor matmul_loop(const Tensor& x, const Tensor& w, const Tensor& b) {
  const int64_t n = x.size(0), k = x.size(1), m = w.size(1);
  std::vector<double> xv = contiguous(x.detach()).to_vector<double>(), wv = contiguous(w.detach()).to_vector<double>(),
                      bv = contiguous(b.detach()).to_vector<double>(), out(n * m);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < m; ++j) {
      double s = bv[j];
      for (int64_t l = 0; l < k; ++l) s += xv[i * k + l] * wv[l * m + j];
      out[i * m + j] = s;
    }
  return cast(from_vector(out, {n, m}), x.dtype());
}

TEST(QuantizedTest, QuantisersMatchLoopsAndPassGradientsStraightThrough) {
  Tensor x = randn({5, 7}) * 0.8;
  EXPECT_TRUE(allclose(nn::sign_ste(x), map_values(x, sgn), 0, 0));
  EXPECT_TRUE(allclose(nn::ternarize(x), ternary_loop(x), 1e-6, 1e-6));
  for (int bits : {1, 2, 4}) EXPECT_TRUE(allclose(nn::dorefa_weight(x, bits), dorefa_weight_loop(x, bits), 1e-5, 1e-6)) << bits;
  EXPECT_TRUE(allclose(nn::dorefa_activation(x, 3), dorefa_activation_loop(x, 3), 1e-6, 1e-6));
  EXPECT_TRUE(allclose(nn::quantize_min_max(x, 3), min_max_loop(x, 3), 1e-5, 1e-5));
  EXPECT_TRUE(allclose(nn::dorefa_weight(x, 32), x, 0, 0));
  // All-zero weights stay zeros (no 0 / 0), for every quantiser.
  Tensor z = zeros({3, 2});
  for (const Tensor& q : {nn::dorefa_weight(z, 1), nn::ternarize(z), nn::quantize_min_max(z, 4), nn::sign_ste(z)})
    EXPECT_TRUE(allclose(q, z, 0, 0));
  EXPECT_TRUE(allclose(nn::quantize_min_max(x, 32), x, 0, 0));
  // Quantised values take at most 2^bits levels.
  std::vector<float> q = nn::quantize_min_max(x, 2).to_vector<float>();
  std::sort(q.begin(), q.end());
  EXPECT_LE(std::unique(q.begin(), q.end()) - q.begin(), 4);

  // Straight through: d sum(q(x) * g) / dx = g for sign, ternary and min-max; for DoReFa the
  // rounding passes straight through and the clip / |.| differentiate as usual.
  Tensor g = randn({5, 7});
  auto grad_of = [&](const std::function<Tensor(const Tensor&)>& q) {
    Tensor xi = clone(x).requires_grad_();
    sum(q(xi) * g).backward();
    return xi.grad();
  };
  for (auto q : {std::function<Tensor(const Tensor&)>(nn::sign_ste), std::function<Tensor(const Tensor&)>(nn::ternarize),
                 std::function<Tensor(const Tensor&)>([](const Tensor& t) { return nn::quantize_min_max(t, 4); }),
                 std::function<Tensor(const Tensor&)>([](const Tensor& t) { return nn::dorefa_weight(t, 1); })})
    EXPECT_TRUE(allclose(grad_of(q), g, 1e-6, 1e-6));
  Tensor in_clip = map_values(x, [](double v) { return std::abs(v) < 1.0 ? 1.0 : 0.0; });  // x/2 + 1/2 in (0, 1)
  EXPECT_TRUE(allclose(grad_of([](const Tensor& t) { return nn::dorefa_weight(t, 2); }), g * in_clip, 1e-6, 1e-6));
  Tensor d_cabs = map_values(x, [](double v) { return std::abs(v) < 1.0 ? sgn(v) : 0.0; });
  EXPECT_TRUE(allclose(grad_of([](const Tensor& t) { return nn::dorefa_activation(t, 3); }), g * d_cabs, 1e-6, 1e-6));
  expect_error([] { nn::DorefaDense(4, 0, 3, {}, "dd"); },
               {"dd (dorefadense)", "\"bit_w\" must be an integer in [1, 32]", "got 0"});
}

TEST(QuantizedTest, SignLayer) {
  nn::Sign s;
  Tensor x = randn({3, 4});
  EXPECT_EQ(s(x).shape(), x.shape());
  expect_same_as([&](const Tensor& t) { return s(t); }, [](const Tensor& t) { return identity_grad(t, map_values(t, sgn)); },
                 x, {});
}

// A dense layer: output [.., units], its forward equals x · q_loop(W) + b by a loop, and the
// gradients (x's, W's, b's) equal those of a dense layer whose W the quantiser passes straight.
void check_dense(nn::QuantizedDense& layer, const std::function<Tensor(const Tensor&)>& weight_loop,
                 const std::function<Tensor(const Tensor&)>& input_ref) {
  Tensor x = randn({6, 5});
  EXPECT_EQ(layer(x).shape(), Shape({6, 3}));
  EXPECT_EQ(layer.W.shape(), Shape({5, 3}));
  EXPECT_EQ(layer.trainable_weights().size(), 2u);
  testing_nn::randomize(layer);
  Tensor wq = weight_loop(layer.W);
  EXPECT_TRUE(allclose(layer(x), matmul_loop(input_ref(x).detach(), wq, layer.b), 1e-5, 1e-5)) << layer.name();
  expect_same_as([&](const Tensor& t) { return layer(t); },
                 [&](const Tensor& t) { return linear(input_ref(t), identity_grad(layer.W, wq), layer.b); }, x,
                 {layer.W, layer.b});
  // The same in eval mode: quantisation does not depend on the mode.
  layer.eval();
  EXPECT_TRUE(allclose(layer(x), matmul_loop(input_ref(x).detach(), wq, layer.b), 1e-5, 1e-5));
  expect_error([&] { layer(randn({2, 4})); }, {layer.name(), "[..., 5]", "[2, 4]"});
}

Tensor no_input_q(const Tensor& t) { return t; }
// DoReFa's input reference: min(|x|, 1) differentiates, the rounding is the loop's, passed straight.
Tensor dorefa_input_ref(const Tensor& t, int bits) {
  Tensor c = minimum(abs(t), ones({}, t.dtype()));
  return identity_grad(c, dorefa_activation_loop(c, bits));
}

TEST(QuantizedTest, DenseLayers) {
  nn::BinaryDense binary(3);
  check_dense(binary, [](const Tensor& w) { return map_values(w, sgn); }, no_input_q);
  EXPECT_EQ(binary.kind(), "binarydense");
  nn::TernaryDense ternary(3);
  check_dense(ternary, ternary_loop, no_input_q);
  nn::DorefaDense dorefa(3);  // 1-bit weights, 3-bit activations
  check_dense(dorefa, [](const Tensor& w) { return dorefa_weight_loop(w, 1); },
              [](const Tensor& t) { return dorefa_input_ref(t, 3); });
  nn::QuanDense quan(3, 4, 5);
  check_dense(quan, [](const Tensor& w) { return min_max_loop(w, 4); },
              [](const Tensor& t) { return identity_grad(t, min_max_loop(t, 5)); });
}

void check_conv(nn::QuantizedConv2d& layer, const std::function<Tensor(const Tensor&)>& weight_loop,
                const std::function<Tensor(const Tensor&)>& input_ref, const ConvOptions& options) {
  Tensor x = randn({2, 6, 5, 3});
  Tensor y = layer(x);
  EXPECT_EQ(layer.W.shape(), Shape({3, 3, 3, 4}));
  testing_nn::randomize(layer);
  Tensor wq = weight_loop(layer.W);
  // Conv2d of float weights is tested against loops in the ops tests; here its weights are the loop's.
  expect_same_as([&](const Tensor& t) { return layer(t); },
                 [&](const Tensor& t) { return conv2d(input_ref(t), identity_grad(layer.W, wq), layer.b, options); },
                 x, {layer.W, layer.b}, 1e-4);
  EXPECT_TRUE(allclose(layer(x), conv2d(input_ref(x).detach(), wq, layer.b, options), 1e-5, 1e-5));
  expect_error([&] { layer(randn({2, 6, 5, 2})); }, {layer.name(), "[N, H, W, 3]"});
}

TEST(QuantizedTest, Conv2dLayers) {
  const ConvOptions same = nn::quantized_conv_same();
  nn::BinaryConv2d binary(4);
  check_conv(binary, [](const Tensor& w) { return map_values(w, sgn); }, no_input_q, same);
  EXPECT_EQ(binary(randn({1, 6, 5, 3})).shape(), Shape({1, 6, 5, 4}));  // SAME, stride 1
  const ConvOptions strided{.stride = {2}, .padding = Padding::valid()};
  nn::TernaryConv2d ternary(4, {3, 3}, {}, strided);
  check_conv(ternary, ternary_loop, no_input_q, strided);
  EXPECT_EQ(ternary(randn({1, 6, 5, 3})).shape(), Shape({1, 2, 2, 4}));
  nn::DorefaConv2d dorefa(4, {3, 3}, 2, 2);
  check_conv(dorefa, [](const Tensor& w) { return dorefa_weight_loop(w, 2); },
             [](const Tensor& t) { return dorefa_input_ref(t, 2); }, same);
  nn::QuanConv2d quan(4, {3});
  check_conv(quan, [](const Tensor& w) { return min_max_loop(w, 8); },
             [](const Tensor& t) { return identity_grad(t, min_max_loop(t, 8)); }, same);
}

// Batch norm folded into Quan weights: the forward by loops (moments of the float product,
// folding, quantising, product), the moving statistics, eval mode, and gradients equal to the
// folded float computation with the quantisers passed straight through.
TEST(QuantizedTest, QuanDenseWithBNFoldsBatchNorm) {
  const double decay = 0.8, eps = 1e-5;
  nn::QuanDenseWithBN layer(3, 6, 5, {}, decay, eps);
  Tensor x = randn({8, 4});
  EXPECT_EQ(layer(x).shape(), Shape({8, 3}));
  EXPECT_EQ(layer.trainable_weights().size(), 3u);    // W, gamma, beta
  EXPECT_EQ(layer.nontrainable_weights().size(), 2u);  // moving_mean, moving_var
  testing_nn::randomize(layer);
  {
    NoGradGuard no_grad;
    copy_(layer.gamma, abs(layer.gamma) + 0.5);
    fill_(layer.moving_mean, 0.0);
    fill_(layer.moving_var, 1.0);
  }
  // Loop reference of one training step.
  Tensor mid = matmul_loop(x, layer.W, zeros({3}));
  std::vector<double> mv = mid.to_vector<double>(), g = layer.gamma.to_vector<double>(),
                      be = layer.beta.to_vector<double>(), wv = layer.W.to_vector<double>();
  std::vector<double> m(3, 0), v(3, 0), wfold(12), bfold(3);
  for (int64_t i = 0; i < 8; ++i)
    for (int64_t j = 0; j < 3; ++j) m[j] += mv[i * 3 + j] / 8;
  for (int64_t i = 0; i < 8; ++i)
    for (int64_t j = 0; j < 3; ++j) v[j] += (mv[i * 3 + j] - m[j]) * (mv[i * 3 + j] - m[j]) / 8;
  for (int64_t k = 0; k < 4; ++k)
    for (int64_t j = 0; j < 3; ++j) wfold[k * 3 + j] = wv[k * 3 + j] * g[j] / std::sqrt(v[j] + eps);
  for (int64_t j = 0; j < 3; ++j) bfold[j] = be[j] - g[j] * m[j] / std::sqrt(v[j] + eps);
  Tensor wq = min_max_loop(from_vector(wfold, {4, 3}), 6), xq = min_max_loop(x, 5);
  Tensor expected = matmul_loop(xq, wq, from_vector(bfold, {3}));
  Tensor y = layer(x);
  EXPECT_TRUE(allclose(y, expected, 1e-4, 1e-4));
  std::vector<double> moving_mean = layer.moving_mean.to_vector<double>(), moving_var = layer.moving_var.to_vector<double>();
  for (int64_t j = 0; j < 3; ++j) {
    EXPECT_NEAR(moving_mean[j], (1 - decay) * m[j], 1e-5);
    EXPECT_NEAR(moving_var[j], decay + (1 - decay) * v[j], 1e-5);
  }
  // Gradients of a training step: the batch moments differentiate, the quantisers pass straight.
  auto reference = [&](const Tensor& t) {
    Tensor p = linear(t, layer.W);
    Tensor bm = mean(p, {0}), bv = var(p, {0}, 0), inv = rsqrt(bv + eps);
    Tensor wf = layer.W * (layer.gamma * inv);
    return linear(identity_grad(t, min_max_loop(t, 5)), identity_grad(wf, min_max_loop(wf, 6)),
                  layer.beta - layer.gamma * bm * inv);
  };
  expect_same_as([&](const Tensor& t) { return layer(t); }, reference, x, {layer.W, layer.gamma, layer.beta}, 1e-4);
  // Eval: the moving statistics, which no longer change.
  layer.eval();
  Tensor mm = clone(layer.moving_mean), mvar = clone(layer.moving_var);
  Tensor inv = rsqrt(mvar + eps), wf = layer.W * (layer.gamma * inv);
  Tensor eval_expected = matmul_loop(min_max_loop(x, 5), min_max_loop(wf, 6), layer.beta - layer.gamma * mm * inv);
  EXPECT_TRUE(allclose(layer(x), eval_expected, 1e-4, 1e-4));
  EXPECT_TRUE(allclose(layer.moving_mean, mm, 0, 0));
  expect_error([&] { layer(randn({2, 5})); }, {layer.name(), "4 channels", "[2, 5]"});
}

TEST(QuantizedTest, QuanConv2dWithBNFoldsBatchNorm) {
  nn::QuanConv2dWithBN layer(4, {3}, 8, 8, {}, ConvOptions{.padding = Padding::same()}, 0.9, 1e-5);
  Tensor x = randn({2, 5, 5, 3});
  EXPECT_EQ(layer(x).shape(), Shape({2, 5, 5, 4}));
  EXPECT_EQ(layer.W.shape(), Shape({3, 3, 3, 4}));
  testing_nn::randomize(layer);
  const ConvOptions same{.padding = Padding::same()};
  auto reference = [&](const Tensor& t) {
    Tensor p = conv2d(t, layer.W, Tensor(), same);
    Tensor bm = mean(p, {0, 1, 2}), bv = var(p, {0, 1, 2}, 0), inv = rsqrt(bv + 1e-5);
    Tensor wf = layer.W * (layer.gamma * inv);
    return conv2d(identity_grad(t, min_max_loop(t, 8)), identity_grad(wf, min_max_loop(wf, 8)),
                  layer.beta - layer.gamma * bm * inv, same);
  };
  expect_same_as([&](const Tensor& t) { return layer(t); }, reference, x, {layer.W, layer.gamma, layer.beta}, 1e-4);
  expect_error([] { nn::QuanConv2dWithBN(4, {3}, 0); }, {"quanconv2dwithbn", "bit_w", "got 0"});
}

}  // namespace
}  // namespace strata

namespace strata {
namespace {

// The new layers declare static models (shape inference on meta tensors, or the batch-1 probe).
TEST(QuantizedTest, NewLayersInAStaticModel) {
  auto x = nn::Input({-1, 8, 8, 3});
  auto h = nn::QuanConv2d(8)(x);
  h = nn::DorefaConv2d(8, {3}, 2, 2)(h);
  h = nn::SubpixelConv2d(2)(h);  // [N, 16, 16, 2]
  h = nn::Shuffle(2)(h);
  h = nn::PadLayer({{0, 0}, {1, 1}, {1, 1}, {0, 0}}, nn::PadLayerMode::symmetric)(h);
  h = nn::AdaptiveAvgPool2d({3})(h);
  h = nn::PRelu6()(nn::Flatten()(h));
  h = nn::DropconnectDense(5, 0.8)(nn::TernaryDense(6)(nn::BinaryDense(7)(nn::QuanDenseWithBN(9)(h))));
  h = nn::Flatten()(nn::QuanConv2dWithBN(2)(nn::Reshape({1, 5, 1})(h)));
  nn::Model net(x, h);
  Tensor y = net(randn({2, 8, 8, 3}));
  EXPECT_EQ(y.shape(), Shape({2, 10}));
  EXPECT_EQ(net.get_layer(2).kind(), "subpixelconv2d");
}

}  // namespace
}  // namespace strata
