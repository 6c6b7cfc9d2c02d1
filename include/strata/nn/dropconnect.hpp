// DropconnectDense (TensorLayer's): a dense layer whose weights, not activations, are dropped.
// In training each element of W is kept with probability `keep` and scaled by 1 / keep (a fresh
// mask each call); in eval it is a plain Dense. b is never dropped.
#pragma once
#include <memory>

#include "strata/core/factory.hpp"
#include "strata/nn/dense.hpp"
#include "strata/nn/options.hpp"

namespace strata::nn {

// Dense's options less in_units (always inferred), plus keep and seed.
#define STRATA_DROPCONNECT_DENSE_OPTIONS(X)                                                      \
  X(int64_t, units, 0, at_least(1), "output features")                                            \
  X(double, keep, 0.5, between(0, 1), "probability of keeping each element of W, in (0, 1]")      \
  X(Activation, act, {}, any(), "applied to x·W + b; empty: none")                                \
  X(int64_t, seed, -1, any(), ">= 0: the layer's own generator's seed; negative: the default generator") \
  X(bool, use_bias, true, any(), "adds the bias b")                                               \
  X(Initializer, w_init, truncated_normal(0.0, 0.1), not_saved(), "initializer of W [in, units]") \
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
