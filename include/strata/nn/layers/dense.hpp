// Dense layers: the fully connected layer, its DropConnect form and the locally connected layer
// over a graph (TensorLayer's LCN).
// One header per layer family (docs/architecture.md, "nn"); each section below keeps its own notes.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "strata/core/factory.hpp"
#include "strata/nn/layer.hpp"
#include "strata/nn/layers/activation.hpp"
#include "strata/nn/options.hpp"

// Dense (fully connected): y = act(x · W + b) over the last axis; W is [in, out] as in
// TensorLayer, `in` inferred from the first input.
namespace strata::nn {

#define STRATA_DENSE_OPTIONS(X)                                                                     \
  X(int64_t, units, 0, at_least(1), "output features")                                              \
  X(Activation, act, {}, any(), "applied to x·W + b: a name (\"relu\") or a function; empty: none") \
  X(int64_t, in_units, -1, at_least(-1), "input features; -1: inferred from the first input")       \
  X(bool, use_bias, true, any(), "adds the bias b")                                                 \
  X(Initializer, w_init, glorot_uniform(), not_saved(), "initializer of W [in_units, units]")       \
  X(Initializer, b_init, zeros_init(), not_saved(), "initializer of b [units]")
STRATA_OPTIONS(DenseOptions, STRATA_DENSE_OPTIONS);

class Dense : public Layer {
 public:
  using Options = DenseOptions;
  STRATA_LAYER_MOVABLE(Dense)
  explicit Dense(Options options, std::string name = "");
  // in_units = -1: inferred at the first call; given, it is checked.
  Dense(int64_t units, Activation act = {}, std::string name = "", int64_t in_units = -1, bool use_bias = true,
        Initializer w_init = glorot_uniform(), Initializer b_init = zeros_init());
  const Options& options() const { return options_; }
  Tensor W, b;

 protected:
  // For layers that are a Dense computing with a transformed W or input (DropconnectDense, the
  // quantised ones): their own kind, Dense's weights, shapes and checks.
  Dense(std::string kind, Options options, std::string name);
  void build(const Shape& input_shape) override;
  Tensor forward(const Tensor& x) override;  // apply(x, W)
  // act(x · weight + b), once x's last axis is checked against the built in_units.
  Tensor apply(const Tensor& x, const Tensor& weight);

 private:
  Options options_;
};

}  // namespace strata::nn

// DropconnectDense (TensorLayer's): a dense layer whose weights, not activations, are dropped.
// In training each element of W is kept with probability `keep` and scaled by 1 / keep (a fresh
// mask each call); in eval it is a plain Dense. b is never dropped.
namespace strata::nn {

// Dense's options less in_units (always inferred), plus keep and seed.
#define STRATA_DROPCONNECT_DENSE_OPTIONS(X)                                                              \
  X(int64_t, units, 0, at_least(1), "output features")                                                   \
  X(double, keep, 0.5, between(0, 1), "probability of keeping each element of W, in (0, 1]")             \
  X(Activation, act, {}, any(), "applied to x·W + b; empty: none")                                       \
  X(int64_t, seed, -1, any(), ">= 0: the layer's own generator's seed; negative: the default generator") \
  X(bool, use_bias, true, any(), "adds the bias b")                                                      \
  X(Initializer, w_init, truncated_normal(0.0, 0.1), not_saved(), "initializer of W [in, units]")        \
  X(Initializer, b_init, zeros_init(), not_saved(), "initializer of b [units]")
STRATA_OPTIONS(DropconnectDenseOptions, STRATA_DROPCONNECT_DENSE_OPTIONS);

class DropconnectDense : public Dense {
 public:
  using Options = DropconnectDenseOptions;
  STRATA_LAYER_MOVABLE(DropconnectDense)
  explicit DropconnectDense(Options options, std::string name = "");
  // keep in (0, 1]; seed >= 0 gives the layer its own generator (else the default one draws).
  explicit DropconnectDense(int64_t units, double keep = 0.5, Activation act = {}, std::string name = "",
                            int64_t seed = -1, bool use_bias = true, Initializer w_init = truncated_normal(0.0, 0.1),
                            Initializer b_init = zeros_init());
  const Options& options() const { return options_; }

 protected:
  Tensor forward(const Tensor& x) override;

 private:
  Options options_;
  std::unique_ptr<Generator> gen_;
};

}  // namespace strata::nn

// LocallyConnectedGraph: the layer of the locally connected network (LCN; Ci et al., ICCV 2019,
// "Optimizing Network Structure for 3D Human Pose Estimation") over the joints of a skeleton.
// Input [..., J, in] -> output [..., J, units]: output joint j is act(sum over the input joints i
// within `hops` edges of j of x[i] · W(i, j) + b(j)), and W(i, j) is not shared between pairs.
//
// The weights are one masked dense matrix over the flattened joints: W [J * in, J * units], row
// i * in + c, column j * units + d, is used only where joints i and j are at most `hops` edges
// apart in the skeleton (seen as an undirected graph); elsewhere it is multiplied by zero in
// every forward (and made zero at build), so neither it nor its gradient reaches the output.
// b is [J * units]. hops = 0 is a per-joint dense layer; hops >= the graph's diameter is a
// plain Dense over the flattened joints.
namespace strata::nn {

#define STRATA_LOCALLY_CONNECTED_GRAPH_OPTIONS(X)                                                             \
  X(int64_t, units, 0, at_least(1), "output features per joint")                                              \
  X(std::vector<int64_t>, parents, {}, at_least(-1),                                                          \
    "the skeleton: each joint's parent joint, -1 for a root; J = its length (at most 1024), no cycles")       \
  X(int64_t, hops, 1, at_least(0), "K: output joint j sees the input joints within K edges of j")             \
  X(Activation, act, {}, any(), "applied to the output: a name (\"relu\") or a function; empty: none")        \
  X(bool, use_bias, true, any(), "adds the bias b [J * units]")                                               \
  X(Initializer, w_init, glorot_uniform(), not_saved(), "initializer of W [J * in, J * units], masked after") \
  X(Initializer, b_init, zeros_init(), not_saved(), "initializer of b [J * units]")
STRATA_OPTIONS(LocallyConnectedGraphOptions, STRATA_LOCALLY_CONNECTED_GRAPH_OPTIONS);

class LocallyConnectedGraph : public Layer {
 public:
  using Options = LocallyConnectedGraphOptions;
  STRATA_LAYER_MOVABLE(LocallyConnectedGraph)
  // Refuses a skeleton with a parent out of [-1, J), a joint its own ancestor, or over 1024 joints.
  explicit LocallyConnectedGraph(Options options, std::string name = "");
  const Options& options() const { return options_; }
  // The 0/1 mask of W ([J * in, J * units], W's dtype) once built: its sum is the free weights.
  const Tensor& mask() const { return mask_; }
  Tensor W, b;

 protected:
  void build(const Shape& input_shape) override;
  Tensor forward(const Tensor& x) override;

 private:
  Options options_;
  std::vector<std::vector<int64_t>> hops_;  // [i][j]: edges between joints i and j; -1: not joined
  Tensor mask_;
};

}  // namespace strata::nn
