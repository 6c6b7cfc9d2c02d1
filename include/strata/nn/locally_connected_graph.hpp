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
#pragma once
#include <cstdint>
#include <vector>

#include "strata/nn/activation.hpp"
#include "strata/nn/layer.hpp"
#include "strata/nn/options.hpp"

namespace strata::nn {

#define STRATA_LOCALLY_CONNECTED_GRAPH_OPTIONS(X)                                                                  \
  X(int64_t, units, 0, at_least(1), "output features per joint")                                                  \
  X(std::vector<int64_t>, parents, {}, at_least(-1),                                                              \
    "the skeleton: each joint's parent joint, -1 for a root; J = its length (at most 1024), no cycles")           \
  X(int64_t, hops, 1, at_least(0), "K: output joint j sees the input joints within K edges of j")                 \
  X(Activation, act, {}, any(), "applied to the output: a name (\"relu\") or a function; empty: none")            \
  X(bool, use_bias, true, any(), "adds the bias b [J * units]")                                                   \
  X(Initializer, w_init, glorot_uniform(), not_saved(), "initializer of W [J * in, J * units], masked after")      \
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
