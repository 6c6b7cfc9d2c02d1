// Conformance cases for the fused recurrent steps (lstm_cell, gru_cell).
#include "ops/conformance.hpp"
#include "strata/ops/rnn.hpp"

namespace strata::testing {

STRATA_CONFORMANCE_CASES(rnn) {
  using V = std::vector<Tensor>;
  // Both outputs feed the loss with different weights, so dh and dc are checked separately.
  auto lstm = [](const V& in) {
    auto hc = lstm_cell(in[0], in[1], in[2]);
    return hc[0] * 1.7 + square(hc[1]);
  };
  // A gate slice of a [batch, time, gates] projection: rows strided, read in place.
  auto step_of = [&](const Shape& s) { return select(rand64(gen, {s[0], 3, s[1]}, -2, 2), 1, 1); };
  return {
      OpCase{"lstm_cell", {rand64(gen, {3, 8}, -2, 2), rand64(gen, {3, 8}, -2, 2), rand64(gen, {3, 2}, -2, 2)}, lstm,
             "contiguous"},
      OpCase{"lstm_cell", {step_of({2, 12}), noncontiguous64(gen, {2, 12}, -2, 2), noncontiguous64(gen, {2, 3})},
             lstm, "strided rows, non-contiguous"},
      OpCase{"gru_cell", {rand64(gen, {3, 6}, -2, 2), rand64(gen, {3, 6}, -2, 2), rand64(gen, {3, 2})},
             [](const V& in) { return gru_cell(in[0], in[1], in[2]); }, "contiguous"},
      OpCase{"gru_cell", {step_of({2, 9}), noncontiguous64(gen, {2, 9}, -2, 2), noncontiguous64(gen, {2, 3})},
             [](const V& in) { return square(gru_cell(in[0], in[1], in[2])); }, "strided rows, non-contiguous"},
  };
}

}  // namespace strata::testing
