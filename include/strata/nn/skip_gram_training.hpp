// Word2vec's fast path: skip-gram with negative sampling trained by a fused update over a
// whole corpus (Mikolov et al.'s word2vec.c and gensim's C routine), Hogwild threads writing
// the two tables without locks. The tables are those of Word2vecEmbedding: embeddings [V, E]
// (the input vectors, the ones to keep) and nce_weights [V, E] (the output vectors). Use it
// where the layer's with_loss path (one autograd graph per batch) is too slow for a corpus.
#pragma once
#include <cstdint>
#include <vector>

#include "strata/core/tensor.hpp"

namespace strata::nn {

// One SGD step on -log σ(o[context]·e[centre]) - Σ_n log σ(-o[n]·e[centre]) with learning rate
// alpha, in place on embeddings (row centre) and output (rows context and negatives); float32,
// contiguous [V, E] tables, not views of one. Every row moves by its gradient at the start of
// the step, so the step is exact gradient descent when the negatives are distinct from each
// other and from context (a repeated row sees its first move, as in word2vec.c's sequential
// order). The logistic comes from an interpolated table (within 3e-6). Returns the loss before
// the step.
double skip_gram_step(Tensor& embeddings, Tensor& output, int64_t centre, int64_t context,
                      const std::vector<int64_t>& negatives, double alpha);

struct SkipGramOptions {
  int64_t window = 5;     // at most this many words either side; each centre draws 1..window
  int64_t negative = 5;   // negatives per (centre, context), drawn from counts^0.75 (a table)
  double alpha = 0.025;   // learning rate, falling linearly to min_alpha over all epochs
  double min_alpha = 0.0001;
  double sample = 1e-3;   // frequent words are dropped with word2vec's probability (0: keep all)
  int64_t epochs = 5;
  int64_t threads = 1;    // Hogwild: each thread a contiguous part of the corpus
  uint64_t seed = 1;
  int64_t boundary = -1;  // an id (e.g. <eos>) that ends a sentence: never trained, windows stop at it
};

struct SkipGramStats {
  int64_t words = 0;       // corpus words read, over all epochs (word2vec's and gensim's raw count)
  int64_t trained = 0;     // centre words kept by subsampling
  double seconds = 0;      // wall time of the training loop
  double cpu_seconds = 0;  // the process's CPU time over it (the fair figure on a loaded machine)
  double mean_loss = 0;    // per (centre, context) pair of the last epoch, on every 8th centre word
};

// Trains embeddings and output in place on `corpus` (ids in [0, V)); counts[i] is word i's
// frequency (the vocabulary's counts), used for subsampling and the negative distribution.
SkipGramStats train_skip_gram(Tensor& embeddings, Tensor& output, const std::vector<int64_t>& corpus,
                              const std::vector<int64_t>& counts, const SkipGramOptions& options = {});

}  // namespace strata::nn
