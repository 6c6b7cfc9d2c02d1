#include "strata/nn/layers/dense.hpp"

#include <deque>
#include <string>

#include "nn/weight_budget.hpp"
#include "strata/nn/option_table.hpp"
#include "strata/ops/elementwise.hpp"
#include "strata/ops/linalg.hpp"

namespace strata::nn {
namespace {

// Bounds the J x J distances and the mask's J * J blocks a config from outside can ask for.
constexpr int64_t kMaxJoints = 1024;

// The skeleton checked: every parent in [-1, J), no joint its own ancestor. Errors name the
// layer, the field and the joints.
void check_skeleton(const std::vector<int64_t>& parents, const std::string& owner) {
  const int64_t joints = static_cast<int64_t>(parents.size());
  const std::string field = owner + ": \"parents\" ";
  STRATA_CHECK(joints >= 1 && joints <= kMaxJoints, field, "must list 1 to ", kMaxJoints, " joints, got ", joints);
  for (int64_t j = 0; j < joints; ++j)
    STRATA_CHECK(parents[j] >= -1 && parents[j] < joints, field, "gives joint ", j, " the parent ", parents[j],
                 ", outside [-1, ", joints - 1, "] (-1: a root)");
  // Walking up from a joint on a cycle comes back to it within J steps.
  for (int64_t j = 0; j < joints; ++j) {
    std::string path = std::to_string(j);
    for (int64_t at = parents[j], steps = 0; at != -1 && steps < joints; at = parents[at], ++steps) {
      path += " -> " + std::to_string(at);
      STRATA_CHECK(at != j, field, "form a cycle (", path, "): a skeleton is a tree, each root's parent -1");
    }
  }
}

// Edges between every two joints of the skeleton as an undirected graph (breadth-first from
// each); -1 where no path joins them (two trees).
std::vector<std::vector<int64_t>> hop_distances(const std::vector<int64_t>& parents) {
  const size_t joints = parents.size();
  std::vector<std::vector<size_t>> next(joints);
  for (size_t j = 0; j < joints; ++j) {
    if (parents[j] < 0) continue;
    next[j].push_back(static_cast<size_t>(parents[j]));
    next[static_cast<size_t>(parents[j])].push_back(j);
  }
  std::vector<std::vector<int64_t>> distance(joints, std::vector<int64_t>(joints, -1));
  for (size_t from = 0; from < joints; ++from) {
    std::vector<int64_t>& d = distance[from];
    std::deque<size_t> queue{from};
    d[from] = 0;
    while (!queue.empty()) {
      const size_t at = queue.front();
      queue.pop_front();
      for (size_t to : next[at])
        if (d[to] < 0) d[to] = d[at] + 1, queue.push_back(to);
    }
  }
  return distance;
}

}  // namespace

LocallyConnectedGraph::LocallyConnectedGraph(Options options, std::string name)
    : Layer("locallyconnectedgraph", std::move(name)), options_(std::move(options)) {
  check_options(options_, *this);
  check_skeleton(options_.parents, owner_text(*this));
  hops_ = hop_distances(options_.parents);
}

void LocallyConnectedGraph::build(const Shape& s) {
  const int64_t joints = static_cast<int64_t>(options_.parents.size()), units = options_.units;
  expect(s.size() >= 2 && s[s.size() - 2] == joints && s.back() >= 1,
         "expects inputs of shape [..., " + std::to_string(joints) + " joints, features] for its skeleton of " +
             std::to_string(joints) + " joints, got " + s.str());
  const int64_t in = s.back();
  // The mask is as large as W: checked against the weight limit before either is made.
  detail::check_weight_size({joints * in, joints * units}, kFloat32, name() + "/W");
  std::vector<float> mask(static_cast<size_t>(joints * in * joints * units), 0.0f);
  for (int64_t i = 0; i < joints; ++i)
    for (int64_t j = 0; j < joints; ++j) {
      const int64_t d = hops_[i][j];
      if (d < 0 || d > options_.hops) continue;
      for (int64_t c = 0; c < in; ++c) std::fill_n(mask.begin() + ((i * in + c) * joints + j) * units, units, 1.0f);
    }
  mask_ = from_vector(mask, {joints * in, joints * units});
  const Initializer masked = [init = options_.w_init, mask = mask_](const Shape& shape, Generator* gen) {
    Tensor w = init(shape, gen);
    return w * mask.to(w.dtype());
  };
  W = add_weight("W", {joints * in, joints * units}, masked);
  if (options_.use_bias) b = add_weight("b", {joints * units}, options_.b_init);
}

Tensor LocallyConnectedGraph::forward(const Tensor& x) {
  const int64_t joints = static_cast<int64_t>(options_.parents.size()), in = W.size(0) / joints;
  expect(x.dim() >= 2 && x.size(-2) == joints && x.size(-1) == in,
         "expected input of shape [..., " + std::to_string(joints) + ", " + std::to_string(in) + "], got " +
             x.shape().str());
  // Follows W when the layer moves to another device or dtype.
  if (mask_.device() != W.device()) mask_ = mask_.to(W.device());
  if (mask_.dtype() != W.dtype()) mask_ = mask_.to(W.dtype());
  std::vector<int64_t> out_shape(x.shape().begin(), x.shape().end() - 2);
  out_shape.insert(out_shape.end(), {joints, options_.units});
  const Tensor y = linear(x.reshape({-1, joints * in}), W * mask_, b);
  return options_.act(y.reshape(Shape(out_shape)));
}

STRATA_DEFINE_OPTIONS(LocallyConnectedGraphOptions, STRATA_LOCALLY_CONNECTED_GRAPH_OPTIONS)
STRATA_LAYER("locallyconnectedgraph", LocallyConnectedGraph);

}  // namespace strata::nn
