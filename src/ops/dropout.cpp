// dropout: inverted dropout whose mask is regenerated from a per-call seed in the backward.
#include "strata/ops/dropout.hpp"

#include "ops/op_common.hpp"
#include "strata/dispatch/dropout.hpp"

namespace strata {

STRATA_REGISTER_OPS("dropout");

Tensor dropout(const Tensor& x, double p, bool training, Generator* gen) {
  ops::check_defined(x, "dropout");
  ops::check_floating(x, "dropout");
  STRATA_CHECK(p >= 0 && p < 1, "dropout: p must be in [0, 1), got ", p);
  if (!training || p == 0) return x;
  const uint64_t seed = (gen ? *gen : default_generator()).engine()();
  Tensor y = dispatch::dropout_apply(x, p, seed);
  if (autograd::needs_grad({&x}))
    autograd::record("dropout", {x}, {y},
                     [p, seed](const ops::Grads& g) { return ops::Grads{dispatch::dropout_apply(g[0], p, seed)}; });
  return y;
}

}  // namespace strata
