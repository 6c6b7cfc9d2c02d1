// The point-cloud layers (strata/points/pointnet.hpp, pointnet2.hpp): each against a brute-force
// reference computed here from its own weights, the symmetries they are built for, gradients
// reaching every weight, and whole-model files.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <string>

#include "strata/strata.hpp"
#include "strata/points/pointnet.hpp"
#include "strata/points/pointnet2.hpp"

namespace strata::points {
namespace layers_test {

// A fresh BatchNorm in eval mode: x / sqrt(1 + eps).
const double kFreshNorm = 1.0 / std::sqrt(1.0 + 1e-5);

Tensor weight(const nn::Layer& layer, const std::string& name) {
  for (const auto& [n, t] : layer.named_weights())
    if (n == name) return t;
  ADD_FAILURE() << "no weight " << name;
  return Tensor();
}

// Row vector x [C] through levels relu(x W_i * norm) with W_i [C_i, C_{i+1}] as float64.
std::vector<double> mlp_levels(std::vector<double> x, const std::vector<std::vector<double>>& ws,
                               const std::vector<int64_t>& widths) {
  for (size_t l = 0; l < ws.size(); ++l) {
    const int64_t in = static_cast<int64_t>(x.size()), out = widths[l];
    std::vector<double> y(static_cast<size_t>(out), 0.0);
    for (int64_t j = 0; j < out; ++j) {
      for (int64_t i = 0; i < in; ++i) y[j] += x[i] * ws[l][i * out + j];
      y[j] = std::max(0.0, y[j] * kFreshNorm);
    }
    x = y;
  }
  return x;
}

std::vector<std::vector<double>> mlp_weights(const nn::Layer& layer, const std::string& prefix, size_t levels) {
  std::vector<std::vector<double>> ws;
  for (size_t l = 0; l < levels; ++l) {
    const Tensor w = weight(layer, prefix + "/dense_" + std::to_string(l) + "/W");
    ws.push_back(w.defined() ? cast(w, kFloat64).to_vector<double>() : std::vector<double>{});
  }
  return ws;
}

double squared_distance(const std::vector<float>& p, int64_t a, int64_t b) {
  double d = 0;
  for (int c = 0; c < 3; ++c) d += (double(p[a * 3 + c]) - p[b * 3 + c]) * (double(p[a * 3 + c]) - p[b * 3 + c]);
  return d;
}

TEST(PointLayers, SetAbstractionMatchesABruteForceReference) {
  manual_seed(3);
  const int64_t N = 40, S = 6, K = 5;
  const double radius = 0.6;
  const Tensor cloud = uniform({1, N, 3}, -1, 1);
  SetAbstraction sa(S, radius, K, {8, 4}, "sa");
  sa.eval();
  const std::vector<float> out = sa(cloud).to_vector<float>();
  ASSERT_EQ(out.size(), static_cast<size_t>(S * (3 + 4)));

  const std::vector<float> p = cloud.to_vector<float>();
  const auto ws = mlp_weights(sa, "sa/mlp_0", 2);
  // Farthest point sampling from point 0, then each centre's first K points within the radius.
  std::vector<int64_t> centres{0};
  std::vector<double> nearest(N, 1e30);
  while (static_cast<int64_t>(centres.size()) < S) {
    int64_t best = 0;
    for (int64_t i = 0; i < N; ++i) {
      nearest[i] = std::min(nearest[i], squared_distance(p, i, centres.back()));
      if (nearest[i] > nearest[best]) best = i;
    }
    centres.push_back(best);
  }
  for (int64_t s = 0; s < S; ++s) {
    const int64_t c = centres[s];
    for (int k = 0; k < 3; ++k) EXPECT_FLOAT_EQ(out[s * 7 + k], p[c * 3 + k]);
    std::vector<int64_t> group;
    for (int64_t i = 0; i < N && static_cast<int64_t>(group.size()) < K; ++i)
      if (squared_distance(p, i, c) < radius * radius) group.push_back(i);
    while (static_cast<int64_t>(group.size()) < K) group.push_back(group[0]);
    std::vector<double> pooled(4, -1e30);
    for (int64_t i : group) {
      std::vector<double> offset(3);
      for (int k = 0; k < 3; ++k) offset[k] = double(p[i * 3 + k]) - p[c * 3 + k];
      const std::vector<double> y = mlp_levels(offset, ws, {8, 4});
      for (int j = 0; j < 4; ++j) pooled[j] = std::max(pooled[j], y[j]);
    }
    for (int j = 0; j < 4; ++j) EXPECT_NEAR(out[s * 7 + 3 + j], pooled[j], 1e-4) << "centre " << s << " feature " << j;
  }
}

TEST(PointLayers, SetAbstractionFeaturesIgnoreATranslationAndScalesAddUp) {
  manual_seed(4);
  const Tensor cloud = uniform({2, 64, 6}, -1, 1);  // coordinates and 3 features
  SetAbstraction msg({.npoint = 16, .radius = {0.4, 0.8}, .nsample = {8, 16}, .mlp = {{8, 16}, {8, 12}}}, "msg");
  msg.eval();
  const Tensor out = msg(cloud);
  ASSERT_EQ(out.shape(), Shape({2, 16, 3 + 16 + 12}));
  // Shifted coordinates shift the centres by the same amount and leave the features alone.
  const Tensor shift = concat({full({2, 64, 3}, 5.0), zeros({2, 64, 3})}, 2);
  const Tensor moved = msg(cloud + shift);
  EXPECT_TRUE(allclose(moved.narrow(2, 3, 28), out.narrow(2, 3, 28), 1e-4, 1e-5));
  EXPECT_TRUE(allclose(moved.narrow(2, 0, 3), out.narrow(2, 0, 3) + 5.0, 1e-5, 1e-5));

  SetAbstraction all({.mlp = {{8, 10}}, .group_all = true}, "all");
  EXPECT_EQ(all(out).shape(), Shape({2, 1, 13}));
  EXPECT_THROW(SetAbstraction({.npoint = 4, .radius = {0.2, 0.4}, .nsample = {8}, .mlp = {{8}}}), Error);
}

TEST(PointLayers, PointNetIsInvariantToThePointsOrderAndStartsUntransformed) {
  manual_seed(5);
  const Tensor cloud = uniform({2, 32, 3}, -1, 1);
  PointNet net({.mlp1 = {8, 8}, .mlp2 = {8, 16}}, "pn");
  net.eval();
  const Tensor global = net(cloud);
  ASSERT_EQ(global.shape(), Shape({2, 16}));
  // An untrained transform net's matrix is the identity (its last Dense starts at zero).
  EXPECT_TRUE(allclose(net.feature_transform(), expand(unsqueeze(eye(8), 0), {2, 8, 8}), 0, 1e-6));
  EXPECT_NEAR(orthogonality_loss(net.feature_transform()).item<double>(), 0.0, 1e-10);
  const Tensor reversed = flip(cloud, {1});
  EXPECT_TRUE(allclose(net(reversed), global, 1e-5, 1e-6));

  PointNet seg({.feature_transform = false, .mlp1 = {8, 8}, .mlp2 = {8, 16}, .global_only = false}, "seg");
  EXPECT_EQ(seg(cloud).shape(), Shape({2, 32, 8 + 16}));
  EXPECT_FALSE(seg.feature_transform().defined());
}

TEST(PointLayers, OrthogonalityLossIsHalfTheSquaredGapFromOrthogonal) {
  // T = 2 I (3 x 3): I - T T^T = -3 I, whose squared norm is 27; half of it per cloud.
  const Tensor t = expand(unsqueeze(eye(3) * 2.0, 0), {4, 3, 3});
  EXPECT_NEAR(orthogonality_loss(t).item<double>(), 13.5, 1e-5);
  const double c = std::cos(0.3), s = std::sin(0.3);
  EXPECT_NEAR(orthogonality_loss(from_vector<double>({c, -s, 0, s, c, 0, 0, 0, 1}, {1, 3, 3})).item<double>(), 0.0, 1e-6);
}

TEST(PointLayers, EdgeConvMaxesItsMlpOverTheNearestNeighbours) {
  manual_seed(6);
  const int64_t N = 12, K = 4;
  const Tensor x = uniform({1, N, 3}, -1, 1);
  EdgeConv edge({.k = K, .mlp = {5}, .act = nn::relu}, "edge");
  edge.eval();
  const std::vector<float> out = edge(x).to_vector<float>();
  ASSERT_EQ(out.size(), static_cast<size_t>(N * 5));
  const std::vector<float> p = x.to_vector<float>();
  const auto ws = mlp_weights(edge, "edge/mlp", 1);
  for (int64_t i = 0; i < N; ++i) {
    std::vector<int64_t> order(N);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](int64_t a, int64_t b) { return squared_distance(p, i, a) < squared_distance(p, i, b); });
    std::vector<double> pooled(5, -1e30);
    for (int64_t n = 0; n < K; ++n) {
      std::vector<double> e(6);
      for (int c = 0; c < 3; ++c) e[c] = p[i * 3 + c], e[3 + c] = double(p[order[n] * 3 + c]) - p[i * 3 + c];
      const std::vector<double> y = mlp_levels(e, ws, {5});
      for (int j = 0; j < 5; ++j) pooled[j] = std::max(pooled[j], y[j]);
    }
    for (int j = 0; j < 5; ++j) EXPECT_NEAR(out[i * 5 + j], pooled[j], 1e-4) << "point " << i;
  }
}

TEST(PointLayers, FeaturePropagationCarriesCoarseFeaturesToTheFinePoints) {
  manual_seed(7);
  const Tensor fine = uniform({2, 20, 4}, -1, 1), coarse = uniform({2, 5, 3 + 6}, -1, 1);
  FeaturePropagation fp({8, 7}, "fp");
  const Tensor out = fp({fine, coarse});
  ASSERT_EQ(out.shape(), Shape({2, 20, 10}));
  EXPECT_TRUE(allclose(out.narrow(2, 0, 3), fine.narrow(2, 0, 3), 0, 0));  // the fine coordinates pass
  // From one coarse point (group_all's output) every fine point gets its features.
  FeaturePropagation from_one({8}, "fp1");
  EXPECT_EQ(from_one({fine, coarse.narrow(1, 0, 1)}).shape(), Shape({2, 20, 11}));
  EXPECT_THROW(fp(fine), Error);
}

// PointNet++'s classifier shape: two set abstractions, a global one, a head; every weight of
// every layer gets a gradient.
nn::Model small_pointnet2(const std::string& name) {
  auto x = nn::Input({-1, 64, 3});
  auto h = SetAbstraction(16, 0.5, 8, {8, 16}, name + "_sa1")(x);
  auto fine = h;
  h = SetAbstraction({.mlp = {{16, 32}}, .group_all = true}, name + "_sa2")(h);
  auto up = FeaturePropagation({12}, name + "_fp")({fine, h});
  auto pooled = nn::Flatten()(SetAbstraction({.mlp = {{8}}, .group_all = true}, name + "_sa3")(up));
  return nn::Model(x, nn::Dense(4)(pooled), name);
}

TEST(PointLayers, GradientsReachEveryWeight) {
  manual_seed(8);
  nn::Model net = small_pointnet2("grads");
  const Tensor cloud = uniform({3, 64, 3}, -1, 1);
  sum(net(cloud) * net(cloud)).backward();
  for (const auto& [name, w] : net.named_weights()) {
    if (name.find("moving") != std::string::npos) continue;
    ASSERT_TRUE(w.grad().defined()) << name;
    EXPECT_GT(sum(abs(w.grad())).item<double>(), 0.0) << name;
  }
}

TEST(PointLayers, ModelsSaveWholeAndLoadBack) {
  manual_seed(9);
  nn::Model net = small_pointnet2("whole");
  const Tensor cloud = uniform({2, 64, 3}, -1, 1);
  net.eval();
  const Tensor before = net(cloud);
  const std::string path = ::testing::TempDir() + "/pointnet2_whole.safetensors";
  net.save(path);
  auto loaded = nn::Model::load(path);
  loaded->eval();
  EXPECT_EQ(loaded->to_json(), net.to_json());
  EXPECT_TRUE(allclose((*loaded)(cloud), before, 0, 0));

  auto x = nn::Input({-1, 32, 3});
  auto g = PointNet({.mlp1 = {8, 8}, .mlp2 = {16}}, "pn_whole")(x);
  auto e = EdgeConv({.k = 4, .mlp = {6}}, "edge_whole")(x);
  auto m = PointMlp(PointMlpOptions{.units = {5, 4}}, "mlp_whole")(x);
  auto t = TransformNet({.k = 3, .mlp = {8}, .fc = {8}}, "tnet_whole")(x);
  nn::Model both({x}, {g, e, m, t}, "pointnet_edge");
  both.eval();
  const Tensor small = uniform({2, 32, 3}, -1, 1);
  const auto outs = both.run({small});
  both.save(path);
  auto back = nn::Model::load(path);
  back->eval();
  const auto again = back->run({small});
  ASSERT_EQ(again.size(), 4u);
  for (size_t i = 0; i < 4; ++i) EXPECT_TRUE(allclose(again[i], outs[i], 0, 0)) << "output " << i;
  std::remove(path.c_str());
}

}  // namespace layers_test
}  // namespace strata::points
