// The skip-gram update family (word2vec's inner loop; strata/nn/layers/embedding.hpp trains
// with it): one SGD step with negative sampling on rows of two float tables, in place. Its
// arguments are raw rows of host-readable tables, not tensors, so it is called with
// skip_gram_update.on(device, ...) for the tables' device; only the CPU implements it.
#pragma once
#include <cstdint>

#include "strata/dispatch/stub.hpp"

namespace strata::dispatch {

// One step of rate alpha on -log σ(o_0·v) - Σ_{t>0} log σ(-o_t·v), where v is the input row
// (dim floats) and o_t = out + targets[t] * dim the output rows: the positive target first, then
// the negatives. Every row moves by its gradient at the start of the step (a repeated target sees
// its first move, as in word2vec.c's order). v must not overlap the output table. g (count
// floats) and grad (dim floats) are the caller's scratch, so that nothing is allocated per step.
// Returns the loss before the step when with_loss, else 0.
extern Stub<double(float* v, float* out, int64_t dim, const int64_t* targets, int64_t count, float alpha, float* g,
                   float* grad, bool with_loss)>
    skip_gram_update;

}  // namespace strata::dispatch
