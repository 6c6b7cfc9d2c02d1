// PointCNN's X-Conv (strata/points/xconv.hpp): against a brute-force float64 reference computed
// here from the layer's own (randomised) weights, the representative points it keeps, features
// that ignore a translation and the points' order, gradients reaching every weight, whole-model
// files, and options refused by name.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <numeric>
#include <string>
#include <vector>

#include "strata/strata.hpp"
#include "strata/points/xconv.hpp"
#include "support/expect_error.hpp"

namespace strata::points {
namespace xconv_test {

using Weights = std::map<std::string, std::vector<double>>;

// Every weight of a built layer set to a random value (variances positive), so that biases and
// the BatchNorms' statistics count in the reference too; returned by name as float64.
Weights randomised(nn::Layer& layer) {
  NoGradGuard no_grad;
  Weights out;
  for (auto [name, w] : layer.named_weights()) {
    copy_(w, name.find("moving_var") != std::string::npos ? uniform(w.shape(), 0.5, 1.5) : uniform(w.shape(), -1, 1));
    out[name] = cast(w, kFloat64).to_vector<double>();
  }
  return out;
}

double elu(double v) { return v > 0 ? v : std::exp(v) - 1; }

// x [rows][in] · W (flat [in, out]) + b (empty: none).
std::vector<std::vector<double>> linear(const std::vector<std::vector<double>>& x, const std::vector<double>& w,
                                        const std::vector<double>& b, size_t out) {
  std::vector<std::vector<double>> y(x.size(), std::vector<double>(out, 0.0));
  for (size_t r = 0; r < x.size(); ++r)
    for (size_t j = 0; j < out; ++j) {
      y[r][j] = b.empty() ? 0.0 : b[j];
      for (size_t i = 0; i < x[r].size(); ++i) y[r][j] += x[r][i] * w[i * out + j];
    }
  return y;
}

// Eval-mode BatchNorm "<prefix>/..." then ELU, over each row.
void norm_elu(std::vector<std::vector<double>>& x, Weights& w, const std::string& prefix) {
  for (auto& row : x)
    for (size_t j = 0; j < row.size(); ++j)
      row[j] = elu((row[j] - w[prefix + "/moving_mean"][j]) / std::sqrt(w[prefix + "/moving_var"][j] + 1e-5) *
                       w[prefix + "/gamma"][j] +
                   w[prefix + "/beta"][j]);
}

// A depthwise convolution spanning the K rows of m [K][Ch] with multiplier M: W [1, K, Ch, M].
std::vector<double> depthwise(const std::vector<std::vector<double>>& m, const std::vector<double>& w,
                              const std::vector<double>& b, size_t M) {
  const size_t K = m.size(), ch = m[0].size();
  std::vector<double> y(ch * M, 0.0);
  for (size_t c = 0; c < ch; ++c)
    for (size_t j = 0; j < M; ++j) {
      double s = b.empty() ? 0.0 : b[c * M + j];
      for (size_t k = 0; k < K; ++k) s += m[k][c] * w[(k * ch + c) * M + j];
      y[c * M + j] = s;
    }
  return y;
}

std::vector<std::vector<double>> square(const std::vector<double>& v, size_t K) {
  std::vector<std::vector<double>> m(K, std::vector<double>(v.size() / K));
  for (size_t i = 0; i < v.size(); ++i) m[i / m[0].size()][i % m[0].size()] = v[i];
  return m;
}

TEST(XConv, MatchesABruteForceReferenceFromItsOwnWeights) {
  manual_seed(11);
  const int64_t N = 12, K = 3, D = 2, C = 4, lift = 2, features = 2, M = 2;
  const Tensor cloud = uniform({1, N, 3 + features}, -1, 1);
  XConv layer({.K = K, .D = D, .C = C, .C_pts_fts = lift, .depth_multiplier = M}, "xc");
  layer(cloud);
  Weights w = randomised(layer);
  layer.eval();
  const std::vector<float> out = layer(cloud).to_vector<float>();
  ASSERT_EQ(out.size(), static_cast<size_t>(N * (3 + C)));

  const std::vector<float> p = cloud.to_vector<float>();
  const int64_t row = 3 + features;
  auto at = [&](int64_t i, int64_t c) { return static_cast<double>(p[i * row + c]); };
  for (int64_t i = 0; i < N; ++i) {
    for (int c = 0; c < 3; ++c) EXPECT_EQ(out[i * (3 + C) + c], p[i * row + c]);  // every point represents
    // Its K * D nearest by a stable sort (itself first), every D-th kept.
    std::vector<int64_t> order(N);
    std::iota(order.begin(), order.end(), 0);
    auto d2 = [&](int64_t j) {
      double s = 0;
      for (int c = 0; c < 3; ++c) s += (at(j, c) - at(i, c)) * (at(j, c) - at(i, c));
      return s;
    };
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return d2(a) < d2(b); });
    std::vector<std::vector<double>> local(K, std::vector<double>(3));
    for (int64_t k = 0; k < K; ++k)
      for (int c = 0; c < 3; ++c) local[k][c] = at(order[k * D], c) - at(i, c);
    // Lifted coordinates joined to the neighbours' features: F [K, lift + features].
    auto f = linear(local, w["xc/lift/dense_0/W"], {}, lift);
    norm_elu(f, w, "xc/lift/bn_0");
    f = linear(f, w["xc/lift/dense_1/W"], {}, lift);
    norm_elu(f, w, "xc/lift/bn_1");
    for (int64_t k = 0; k < K; ++k)
      for (int64_t c = 0; c < features; ++c) f[k].push_back(at(order[k * D], 3 + c));
    // X: the convolution over the K neighbours' coordinates (one row of K * 3), then two depthwise.
    std::vector<double> flat;
    for (const auto& r : local) flat.insert(flat.end(), r.begin(), r.end());
    std::vector<double> x0 = linear({flat}, w["xc/x_0/W"], w["xc/x_0/b"], K * K)[0];
    for (double& v : x0) v = elu(v);
    std::vector<double> x1 = depthwise(square(x0, K), w["xc/x_1/W"], w["xc/x_1/b"], K);
    for (double& v : x1) v = elu(v);
    const auto X = square(depthwise(square(x1, K), w["xc/x_2/W"], w["xc/x_2/b"], K), K);
    std::vector<std::vector<double>> xf(K, std::vector<double>(f[0].size(), 0.0));
    for (int64_t r = 0; r < K; ++r)
      for (int64_t s = 0; s < K; ++s)
        for (size_t c = 0; c < f[0].size(); ++c) xf[r][c] += X[r][s] * f[s][c];
    // The separable convolution over the K rows, its BatchNorm and ELU.
    auto y = linear({depthwise(xf, w["xc/conv/depthwise_W"], {}, M)}, w["xc/conv/pointwise_W"], {}, C);
    norm_elu(y, w, "xc/bn");
    for (int64_t j = 0; j < C; ++j) EXPECT_NEAR(out[i * (3 + C) + 3 + j], y[0][j], 1e-4) << "point " << i << " feature " << j;
  }
}

TEST(XConv, SamplesRepresentativesAndIgnoresATranslationAndThePointsOrder) {
  manual_seed(12);
  const Tensor cloud = uniform({2, 32, 3 + 5}, -1, 1);
  XConv layer({.K = 4, .D = 2, .P = 8, .C = 6}, "xc_shapes");
  layer.eval();
  const Tensor out = layer(cloud);
  ASSERT_EQ(out.shape(), Shape({2, 8, 3 + 6}));
  EXPECT_EQ(layer.lifted_features(), 1);  // C / 4, rounded down, at least 1
  // The representatives are the farthest-point sample's points.
  const Tensor xyz = narrow(cloud, 2, 0, 3);
  const Tensor sampled = squeeze(group_points(xyz, unsqueeze(farthest_point_sample(xyz, 8), 2)), 2);
  EXPECT_TRUE(allclose(narrow(out, 2, 0, 3), sampled, 0, 0));
  // Shifted coordinates shift the representatives and leave the features alone.
  const Tensor shift = concat({full({2, 32, 3}, 5.0), zeros({2, 32, 5})}, 2);
  const Tensor moved = layer(cloud + shift);
  EXPECT_TRUE(allclose(narrow(moved, 2, 3, 6), narrow(out, 2, 3, 6), 1e-4, 1e-4));
  EXPECT_TRUE(allclose(narrow(moved, 2, 0, 3), narrow(out, 2, 0, 3) + 5.0, 1e-5, 1e-5));

  // With every point representing, reversing the input reverses the output and nothing else:
  // each point's neighbours are found, and ordered, by distance.
  XConv all({.K = 6, .C = 5}, "xc_all");
  all.eval();
  const Tensor each = all(cloud);
  ASSERT_EQ(each.shape(), Shape({2, 32, 3 + 5}));
  EXPECT_TRUE(allclose(narrow(each, 2, 0, 3), xyz, 0, 0));
  EXPECT_TRUE(allclose(all(flip(cloud, {1})), flip(each, {1}), 1e-5, 1e-5));

  XConv plain({.K = 4, .P = 0, .C = 3, .with_X_transformation = false}, "xc_plain");
  EXPECT_EQ(plain(cloud).shape(), Shape({2, 32, 6}));
  for (const auto& [name, t] : plain.named_weights()) EXPECT_EQ(name.find("/x_"), std::string::npos) << name;
}

// A small PointCNN classifier: two X-Convs, a mean over the representatives, a Dense.
nn::Model small_pointcnn(const std::string& name) {
  auto x = nn::Input({-1, 32, 3});
  auto h = XConv({.K = 4, .C = 8, .depth_multiplier = 2}, name + "_xc1")(x);
  h = XConv({.K = 4, .D = 2, .P = 8, .C = 12}, name + "_xc2")(h);
  return nn::Model(x, nn::Dense(3, {}, name + "_head")(nn::GlobalMeanPool1d()(h)), name);
}

TEST(XConv, GradientsReachEveryWeight) {
  manual_seed(13);
  nn::Model net = small_pointcnn("xc_grads");
  const Tensor cloud = uniform({3, 32, 3}, -1, 1);
  sum(net(cloud) * net(cloud)).backward();
  int checked = 0;
  for (const auto& [name, w] : net.named_weights()) {
    if (name.find("moving") != std::string::npos) continue;
    ASSERT_TRUE(w.grad().defined()) << name;
    EXPECT_GT(sum(abs(w.grad())).item<double>(), 0.0) << name;
    ++checked;
  }
  EXPECT_EQ(checked, 2 * 16 + 2);  // per X-Conv: lift 2 W + 2 x 2 norm, x_0..x_2 W and b, conv 2, bn 2
}

TEST(XConv, ModelsSaveWholeAndLoadBack) {
  manual_seed(14);
  nn::Model net = small_pointcnn("xc_whole");
  const Tensor cloud = uniform({2, 32, 3}, -1, 1);
  net(cloud);  // a training step's statistics, so the saved moving averages are not the initial ones
  net.eval();
  const Tensor before = net(cloud);
  const std::string path = ::testing::TempDir() + "/xconv_whole.safetensors";
  net.save(path);
  auto loaded = nn::Model::load(path);
  loaded->eval();
  EXPECT_EQ(loaded->to_json(), net.to_json());
  EXPECT_TRUE(allclose((*loaded)(cloud), before, 0, 0));
  std::remove(path.c_str());
}

TEST(XConv, BadOptionsAndInputsAreRefusedByName) {
  using strata::testing::expect_error;
  expect_error([] { XConv({.K = 4}, "no_c"); }, {"no_c", "\"C\""});
  expect_error([] { XConv({.K = 0, .C = 4}, "no_k"); }, {"no_k", "\"K\""});
  expect_error([] { XConv({.D = 0, .C = 4}, "no_d"); }, {"no_d", "\"D\""});
  expect_error([] { XConv({.P = -2, .C = 4}, "bad_p"); }, {"bad_p", "\"P\""});
  expect_error([] { XConv({.C = 4, .C_pts_fts = -3}, "bad_lift"); }, {"bad_lift", "\"C_pts_fts\""});
  expect_error([] { XConv({.C = 4, .depth_multiplier = 0}, "bad_dm"); }, {"bad_dm", "\"depth_multiplier\""});
  XConv layer({.K = 8, .D = 2, .C = 4}, "too_few");
  expect_error([&] { layer(uniform({1, 10, 3}, -1, 1)); }, {"too_few", "K * D = 16", "10 points"});
  XConv sampled({.K = 2, .P = 20, .C = 4}, "too_many");
  expect_error([&] { sampled(uniform({1, 10, 3}, -1, 1)); }, {"too_many", "P = 20"});
  expect_error([&] { sampled(uniform({1, 10, 2}, -1, 1)); }, {"too_many", "[B, N, 3 + C]"});
}

}  // namespace xconv_test
}  // namespace strata::points
