// LocallyConnectedGraph (LCN): outputs against a loop over joints and their K-hop neighbours
// built from the layer's own weights, gradients against finite differences, the mask really
// cutting far joints off, static and dynamic models, whole-model files, and bad skeletons.
#include <gtest/gtest.h>

#include <algorithm>

#include "nn/layer_check.hpp"
#include "strata/nn/layer_config.hpp"
#include "nn/weight_gradcheck.hpp"
#include "support/temp_dir.hpp"

namespace strata {
namespace {

using testing_nn::expect_error;
using LocallyConnectedGraphTest = testing::TempDirTest;

// A small body: a root with three chains (0 -> 1 -> 2, 0 -> 3 -> 4, 0 -> 5 -> 6).
const std::vector<int64_t> kLcgBody = {-1, 0, 1, 0, 3, 0, 5};

// Edges between every two joints by Floyd-Warshall on the adjacency matrix (independent of the
// layer's breadth-first search); a large number where no path joins them.
std::vector<std::vector<int64_t>> lcg_floyd_distances(const std::vector<int64_t>& parents) {
  const size_t n = parents.size();
  const int64_t far = 1 << 20;
  std::vector<std::vector<int64_t>> d(n, std::vector<int64_t>(n, far));
  for (size_t i = 0; i < n; ++i) {
    d[i][i] = 0;
    if (parents[i] >= 0) d[i][parents[i]] = d[parents[i]][i] = 1;
  }
  for (size_t k = 0; k < n; ++k)
    for (size_t i = 0; i < n; ++i)
      for (size_t j = 0; j < n; ++j) d[i][j] = std::min(d[i][j], d[i][k] + d[k][j]);
  return d;
}

// y[n, j, u] = tanh(b[j * units + u] + sum over joints i within `hops` of j and channels c of
// x[n, i, c] * W[i * in + c, j * units + u]), read element by element.
std::vector<double> lcg_brute_force(const std::vector<int64_t>& parents, int64_t hops, const Tensor& x,
                                    const Tensor& w, const Tensor& b) {
  const int64_t batch = x.size(0), joints = x.size(1), in = x.size(2), units = w.size(1) / joints;
  const auto d = lcg_floyd_distances(parents);
  const std::vector<double> xv = x.to_vector<double>(), wv = w.to_vector<double>(), bv = b.to_vector<double>();
  std::vector<double> y(static_cast<size_t>(batch * joints * units));
  for (int64_t n = 0; n < batch; ++n)
    for (int64_t j = 0; j < joints; ++j)
      for (int64_t u = 0; u < units; ++u) {
        double acc = bv[j * units + u];
        for (int64_t i = 0; i < joints; ++i) {
          if (d[i][j] > hops) continue;
          for (int64_t c = 0; c < in; ++c) acc += xv[(n * joints + i) * in + c] * wv[(i * in + c) * joints * units + j * units + u];
        }
        y[(n * joints + j) * units + u] = std::tanh(acc);
      }
  return y;
}

nn::LocallyConnectedGraph lcg_layer(std::vector<int64_t> parents, int64_t hops, int64_t units, uint64_t seed) {
  return nn::LocallyConnectedGraph({.units = units, .parents = std::move(parents), .hops = hops, .act = "tanh",
                                    .w_init = testing_nn::f64_uniform(seed), .b_init = testing_nn::f64_uniform(seed + 1)});
}

TEST_F(LocallyConnectedGraphTest, MatchesALoopOverJointsAndTheirNeighbours) {
  for (int64_t hops : {0, 1, 2, 4}) {
    nn::LocallyConnectedGraph layer = lcg_layer(kLcgBody, hops, 3, 5);
    const Tensor x = randn({4, 7, 2}, kFloat64);
    const Tensor y = layer(x);
    ASSERT_EQ(y.shape(), Shape({4, 7, 3}));
    // Every entry of W random, those outside the neighbourhood too: the forward must skip them.
    testing_nn::randomize(layer, 9 + hops);
    const std::vector<double> got = layer(x).to_vector<double>();
    const std::vector<double> want = lcg_brute_force(kLcgBody, hops, x, layer.W, layer.b);
    ASSERT_EQ(got.size(), want.size());
    for (size_t k = 0; k < got.size(); ++k) ASSERT_NEAR(got[k], want[k], 1e-12) << "hops " << hops << " element " << k;
    // The mask's ones are the free weights: (pairs within K hops) x in x units.
    const auto d = lcg_floyd_distances(kLcgBody);
    int64_t pairs = 0;
    for (const auto& row : d) pairs += std::count_if(row.begin(), row.end(), [&](int64_t e) { return e <= hops; });
    EXPECT_EQ(sum(layer.mask()).item<double>(), static_cast<double>(pairs * 2 * 3)) << "hops " << hops;
  }
}

TEST_F(LocallyConnectedGraphTest, BuildZeroesTheWeightsOutsideTheNeighbourhood) {
  nn::LocallyConnectedGraph layer = lcg_layer(kLcgBody, 1, 2, 3);
  layer(randn({1, 7, 3}, kFloat64));
  // Joints 2 and 4 are four edges apart: their block of W is zero; 1 and 2 are neighbours.
  EXPECT_EQ(max(abs(narrow(narrow(layer.W, 0, 2 * 3, 3), 1, 4 * 2, 2))).item<double>(), 0.0);
  EXPECT_GT(max(abs(narrow(narrow(layer.W, 0, 2 * 3, 3), 1, 1 * 2, 2))).item<double>(), 0.0);
}

TEST_F(LocallyConnectedGraphTest, GradientsMatchFiniteDifferences) {
  nn::LocallyConnectedGraph layer = lcg_layer(kLcgBody, 1, 2, 13);
  testing_nn::expect_gradcheck([&](const std::vector<Tensor>& v) { return layer(v[0]); }, {randn({2, 7, 3}, kFloat64)});
  const Tensor x = randn({2, 7, 3}, kFloat64);
  testing_nn::expect_weight_grads([&] { return layer(x); }, {layer.W, layer.b});
  // No gradient reaches a weight outside the neighbourhood (joints 2 and 6 are four edges apart).
  EXPECT_EQ(max(abs(narrow(narrow(layer.W.grad(), 0, 2 * 3, 3), 1, 6 * 2, 2))).item<double>(), 0.0);
}

TEST_F(LocallyConnectedGraphTest, AFarJointDoesNotChangeTheOutput) {
  // A chain 0 - 1 - 2 - 3 - 4 - 5 with K = 2: joint 5 reaches joints 3, 4 and 5 only.
  nn::LocallyConnectedGraph layer({.units = 4, .parents = {-1, 0, 1, 2, 3, 4}, .hops = 2, .act = "relu"});
  const Tensor x = randn({3, 6, 2});
  Tensor moved = clone(x);
  {
    NoGradGuard no_grad;
    Tensor far_joint = narrow(moved, 1, 5, 1);
    copy_(far_joint, randn({3, 1, 2}) * 10.0);
  }
  const Tensor before = layer(x), after = layer(moved);
  EXPECT_TRUE(allclose(narrow(before, 1, 0, 3), narrow(after, 1, 0, 3), 0, 0));
  EXPECT_FALSE(allclose(narrow(before, 1, 3, 3), narrow(after, 1, 3, 3)));
}

TEST_F(LocallyConnectedGraphTest, StaticAndDynamicModelsAgreeAndSaveWhole) {
  auto x = nn::Input({-1, 7, 2}, "keypoints");
  auto h = nn::LocallyConnectedGraph({.units = 8, .parents = kLcgBody, .hops = 2, .act = "relu"}, "lcn_a")(x);
  auto y = nn::LocallyConnectedGraph({.units = 3, .parents = kLcgBody, .hops = 1, .use_bias = false}, "lcn_b")(h);
  nn::Model net(x, y, "lcn_net");
  EXPECT_EQ(net.get_layer("lcn_a").all_weights()[0].shape(), Shape({7 * 2, 7 * 8}));
  EXPECT_EQ(net.get_layer("lcn_b").all_weights().size(), 1u);  // no bias

  // The same layers called by a PyTorch-style module give the static model's outputs.
  struct Net : nn::Module {
    nn::Layer *a, *b;
    Tensor forward(const Tensor& in) override { return (*b)((*a)(in)); }
  } dynamic;
  dynamic.a = &net.get_layer("lcn_a");
  dynamic.b = &net.get_layer("lcn_b");
  const Tensor in = randn({5, 7, 2});
  const Tensor out = net.run({in})[0];
  EXPECT_EQ(out.shape(), Shape({5, 7, 3}));
  EXPECT_TRUE(allclose(dynamic(in), out, 1e-6, 1e-6));

  net.save(path("lcn.safetensors"));
  auto loaded = nn::Model::load(path("lcn.safetensors"));
  EXPECT_EQ(loaded->to_json(), net.to_json());
  EXPECT_TRUE(allclose(loaded->run({in})[0], out, 0, 0));
  const auto& options = dynamic_cast<nn::LocallyConnectedGraph&>(loaded->get_layer("lcn_a")).options();
  EXPECT_EQ(options.parents, kLcgBody);
  EXPECT_EQ(options.hops, 2);
}

TEST_F(LocallyConnectedGraphTest, BadSkeletonsAndInputsAreRefusedWithClearMessages) {
  expect_error([] { nn::LocallyConnectedGraph({.units = 2, .parents = {-1, 2, 3, 1}}, "cyclic"); },
               {"cyclic (locallyconnectedgraph)", "\"parents\"", "cycle", "1 -> 2 -> 3 -> 1"});
  expect_error([] { nn::LocallyConnectedGraph({.units = 2, .parents = {-1, 0, 5}}, "far"); },
               {"far (locallyconnectedgraph)", "\"parents\"", "joint 2 the parent 5", "outside [-1, 2]"});
  expect_error([] { nn::LocallyConnectedGraph({.units = 2, .parents = {-1, 1}}); }, {"cycle", "1 -> 1"});
  expect_error([] { nn::LocallyConnectedGraph({.units = 2, .parents = {}}); }, {"\"parents\"", "1 to 1024 joints, got 0"});
  expect_error([] { nn::LocallyConnectedGraph({.units = 2, .parents = {-1, 0}, .hops = -1}); },
               {"(locallyconnectedgraph)", "\"hops\"", "[0, 2147483647]"});
  expect_error([] { nn::LocallyConnectedGraph({.units = 2, .parents = {-1, -2}}); }, {"\"parents\"", "-1"});
  // From a config (a file): the same checks.
  expect_error(
      [] {
        nn::layer_from_config(
            {{"class", "locallyconnectedgraph"}, {"name", "loaded"}, {"config", {{"units", 2}, {"parents", {-1, 2, 1}}}}});
      },
      {"loaded (locallyconnectedgraph)", "cycle"});
  nn::LocallyConnectedGraph layer({.units = 2, .parents = kLcgBody}, "body");
  expect_error([&] { layer(randn({2, 6, 3})); }, {"body", "[..., 7 joints, features]", "[2, 6, 3]"});
  layer(randn({2, 7, 3}));
  expect_error([&] { layer(randn({2, 7, 4})); }, {"body", "[..., 7, 3]", "[2, 7, 4]"});
}

}  // namespace
}  // namespace strata
