// dropout: inverted dropout whose mask is regenerated from a per-call seed in the backward.
#include "strata/ops/dropout.hpp"

#include "ops/op_common.hpp"
#include "strata/dispatch/dropout.hpp"

namespace strata {

namespace {

// The kept entries scaled by 1 / (1 - p), the rest zeroed, by the mask `seed` regenerates. Linear
// and self-adjoint: its gradient is itself, recorded as dropout's backward under create_graph.
Tensor apply_mask(const Tensor& x, double p, uint64_t seed, bool is_backward) {
  Tensor y = dispatch::dropout_apply(x, p, seed);
  if (autograd::needs_grad({&x})) {
    auto backward = [p, seed](const ops::Grads& g) { return ops::Grads{apply_mask(g[0], p, seed, true)}; };
    if (is_backward) ops::record_backward(ops::Op::dropout, {x}, {y}, backward);
    else ops::record(ops::Op::dropout, {x}, {y}, backward);
  }
  return y;
}

}  // namespace

Tensor dropout(const Tensor& x, double p, bool training, Generator* gen) {
  ops::check_defined(x, "dropout");
  ops::check_floating(x, "dropout");
  STRATA_CHECK(p >= 0 && p < 1, "dropout: p must be in [0, 1), got ", p);
  if (!training || p == 0) return x;
  const uint64_t seed = (gen ? *gen : default_generator()).engine()();
  return apply_mask(x, p, seed, false);
}

}  // namespace strata
