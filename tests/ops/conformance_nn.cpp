// Conformance cases for softmax, the losses, the normalisations and dropout.
#include "ops/conformance.hpp"
#include "strata/ops/dropout.hpp"

namespace strata::testing {
namespace {

Tensor ids(std::vector<int64_t> v, const Shape& shape) { return from_vector(v, shape); }

}  // namespace

STRATA_CONFORMANCE_CASES(nn) {
  using V = std::vector<Tensor>;
  // Probability targets: positive rows normalised to 1.
  Tensor probs = rand64(gen, {3, 4}, 0.1, 1.0);
  probs = probs / sum(probs, {-1}, true);
  return {
      OpCase{"softmax", {rand64(gen, {3, 5}, -2, 2)}, [](const V& in) { return softmax(in[0]); }, "last axis"},
      OpCase{"softmax", {noncontiguous64(gen, {4, 3, 2}, -2, 2)}, [](const V& in) { return softmax(in[0], 1); },
             "middle axis, non-contiguous"},
      OpCase{"log_softmax", {rand64(gen, {2, 6}, -3, 3)}, [](const V& in) { return log_softmax(in[0]); }, "last axis"},
      OpCase{"log_softmax", {noncontiguous64(gen, {3, 4}, -2, 2)}, [](const V& in) { return log_softmax(in[0], 0); },
             "first axis, non-contiguous"},

      OpCase{"cross_entropy", {rand64(gen, {4, 5}, -2, 2), ids({0, 4, 2, 1}, {4})},
             [](const V& in) { return cross_entropy(in[0], in[1]); }, "class ids, mean"},
      OpCase{"cross_entropy", {noncontiguous64(gen, {2, 3, 3}, -2, 2), ids({0, 2, 1, 1, 0, 2}, {2, 3})},
             [](const V& in) { return cross_entropy(in[0], in[1], Reduction::none); },
             "class ids [N, L], none, non-contiguous"},
      OpCase{"cross_entropy", {rand64(gen, {3, 4}, -2, 2), probs},
             [](const V& in) { return cross_entropy(in[0], in[1], Reduction::sum); }, "probabilities, sum"},
      OpCase{"nll_loss", {rand64(gen, {4, 3}, -3, 0), ids({2, 0, 1, 2}, {4})},
             [](const V& in) { return nll_loss(in[0], in[1]); }, "mean"},
      OpCase{"nll_loss", {noncontiguous64(gen, {3, 4}, -3, 0), ids({3, 0, 1}, {3})},
             [](const V& in) { return nll_loss(in[0], in[1], Reduction::none); }, "none, non-contiguous"},
      OpCase{"binary_cross_entropy_with_logits", {rand64(gen, {3, 4}, -4, 4), rand64(gen, {3, 4}, 0, 1)},
             [](const V& in) { return binary_cross_entropy_with_logits(in[0], in[1]); }, "mean"},
      OpCase{"binary_cross_entropy_with_logits", {noncontiguous64(gen, {2, 5}, -4, 4), rand64(gen, {2, 5}, 0, 1)},
             [](const V& in) { return binary_cross_entropy_with_logits(in[0], in[1], Reduction::none); },
             "none, non-contiguous"},
      OpCase{"mse_loss", {rand64(gen, {3, 4}), rand64(gen, {3, 4})},
             [](const V& in) { return mse_loss(in[0], in[1]); }, "mean"},
      OpCase{"mse_loss", {noncontiguous64(gen, {4, 3}), rand64(gen, {4, 3})},
             [](const V& in) { return mse_loss(in[0], in[1], Reduction::none); }, "none, non-contiguous"},
      OpCase{"l1_loss", {rand64(gen, {3, 4}), rand64(gen, {3, 4})},
             [](const V& in) { return l1_loss(in[0], in[1], Reduction::sum); }, "sum"},
      OpCase{"huber_loss", {rand64(gen, {4, 4}, -2, 2), rand64(gen, {4, 4}, -1, 1)},
             [](const V& in) { return huber_loss(in[0], in[1], Reduction::none, 0.8); }, "both branches, none"},
      OpCase{"huber_loss", {noncontiguous64(gen, {3, 4}, -2, 2), rand64(gen, {3, 4})},
             [](const V& in) { return huber_loss(in[0], in[1]); }, "mean, non-contiguous"},

      OpCase{"batch_norm", {rand64(gen, {3, 2, 4}, -2, 2), rand64(gen, {4}, 0.5, 1.5), rand64(gen, {4})},
             [](const V& in) {
               // Running statistics are buffers (no gradient): made here, in the input's dtype (the
               // float32 mode runs the case in float32), so every call starts alike.
               Tensor rm = zeros({4}, in[0].dtype()), rv = ones({4}, in[0].dtype());
               return batch_norm(in[0], in[1], in[2], rm, rv, /*training=*/true);
             },
             "training"},
      OpCase{"batch_norm", {noncontiguous64(gen, {5, 3}, -2, 2)},
             [](const V& in) { return batch_norm(in[0], Tensor(), Tensor(), Tensor(), Tensor(), true); },
             "training, no affine, non-contiguous"},
      OpCase{"batch_norm", {rand64(gen, {4, 3}, -2, 2), rand64(gen, {3}, 0.5, 1.5), rand64(gen, {3})},
             [](const V& in) {
               Tensor rm = cast(tensor({0.1, -0.2, 0.3}), in[0].dtype());
               Tensor rv = cast(tensor({0.5, 1.5, 2.0}), in[0].dtype());
               return batch_norm(in[0], in[1], in[2], rm, rv, /*training=*/false);
             },
             "eval, running statistics"},
      OpCase{"layer_norm", {rand64(gen, {3, 2, 3}, -2, 2), rand64(gen, {2, 3}, 0.5, 1.5), rand64(gen, {2, 3})},
             [](const V& in) { return layer_norm(in[0], {2, 3}, in[1], in[2]); }, "two normalised axes"},
      OpCase{"layer_norm", {noncontiguous64(gen, {4, 5}, -2, 2)},
             [](const V& in) { return layer_norm(in[0], {5}); }, "no affine, non-contiguous"},

      OpCase{"dropout", {rand64(gen, {4, 6})},
             [](const V& in) {
               Generator g(17);  // the same mask on every call, so finite differences see it
               return dropout(in[0], 0.4, true, &g);
             },
             "training"},
      OpCase{"dropout", {noncontiguous64(gen, {3, 4})},
             [](const V& in) {
               Generator g(3);
               return dropout(in[0], 0.25, true, &g) * 2.0;
             },
             "non-contiguous"},
  };
}

}  // namespace strata::testing
