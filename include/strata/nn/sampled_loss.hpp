// Losses over a sample of the classes, for large vocabularies (TensorFlow's nce_loss and
// sampled_softmax_loss, which TensorLayer's Word2vecEmbedding uses), and the log-uniform
// (Zipfian) candidate sampler they draw negatives from.
#pragma once
#include "strata/core/factory.hpp"
#include "strata/ops/loss.hpp"

namespace strata::nn {

// Sampled classes with their expected counts (how often the sampler would pick each class in
// one draw of the whole sample), which the losses subtract in log space.
struct CandidateSample {
  Tensor sampled;           // [num_sampled] int64
  Tensor true_expected;     // [B, num_true] float64, for the true classes
  Tensor sampled_expected;  // [num_sampled] float64
};

// TensorFlow's log_uniform_candidate_sampler: class k in [0, range_max) with probability
// log((k + 2) / (k + 1)) / log(range_max + 1), so ids should be sorted by falling frequency.
// unique: num_sampled distinct classes (drawn until there are enough); then the expected
// count of a class of probability p after n draws is 1 - (1 - p)^n, else num_sampled * p.
// true_classes: int ids [B] or [B, num_true].
CandidateSample log_uniform_candidates(const Tensor& true_classes, int64_t num_sampled, int64_t range_max,
                                       bool unique = true, Generator* gen = nullptr);

// Noise-contrastive estimation (Gutmann & Hyvärinen; TensorFlow's nce_loss): logistic loss of
// each true class (target 1 / num_true) against the sampled ones (target 0), with logits
// inputs · weights[c] + biases[c] - log(expected count of c), summed per example.
// weights [V, E], biases [V], labels int [B] or [B, num_true], inputs [B, E].
// remove_accidental_hits drops sampled classes that equal a true label of the example.
Tensor nce_loss(const Tensor& weights, const Tensor& biases, const Tensor& labels, const Tensor& inputs,
                const CandidateSample& sample, bool remove_accidental_hits = false,
                Reduction reduction = Reduction::mean);

// Sampled softmax (Jean et al.; TensorFlow's sampled_softmax_loss): softmax cross-entropy over
// the true and the sampled classes, with the same corrected logits as nce_loss.
Tensor sampled_softmax_loss(const Tensor& weights, const Tensor& biases, const Tensor& labels, const Tensor& inputs,
                            const CandidateSample& sample, bool remove_accidental_hits = true,
                            Reduction reduction = Reduction::mean);

}  // namespace strata::nn
