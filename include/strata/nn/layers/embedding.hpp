// Embedding layers: look-up and one-hot embeddings, positional embeddings, word2vec's embedding
// with its sampled losses and skip-gram training, and the averaging embedding.
// One header per layer family (docs/architecture.md, "nn"); each section below keeps its own notes.
#pragma once
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "strata/core/factory.hpp"
#include "strata/core/tensor.hpp"
#include "strata/nn/layer.hpp"
#include "strata/nn/options.hpp"
#include "strata/ops/loss.hpp"

// Layers on integer ids: Embedding (a trainable lookup table, TensorLayer's Embedding) and
// OneHot (TensorLayer's OneHot, no weights).
namespace strata::nn {

// ids of any shape (int64 or int32, in [0, vocabulary_size)) -> [..., embedding_size].
// The table "embeddings" is [vocabulary_size, embedding_size].
#define STRATA_EMBEDDING_OPTIONS(X)                                              \
  X(int64_t, vocabulary_size, 0, at_least(1), "ids are in [0, vocabulary_size)") \
  X(int64_t, embedding_size, 0, at_least(1), "features of each id's vector")     \
  X(Initializer, e_init, (random_uniform(-0.1, 0.1)), not_saved(), "initializer of embeddings")
STRATA_OPTIONS(EmbeddingOptions, STRATA_EMBEDDING_OPTIONS);

class Embedding : public Layer {
 public:
  using Options = EmbeddingOptions;
  STRATA_LAYER_MOVABLE(Embedding)
  explicit Embedding(Options options, std::string name = "");
  Embedding(int64_t vocabulary_size, int64_t embedding_size, Initializer e_init = random_uniform(-0.1, 0.1),
            std::string name = "");
  const Options& options() const { return options_; }
  Tensor embeddings;

 protected:
  void build(const Shape& input_shape) override;
  Tensor forward(const Tensor& ids) override;

 private:
  Options options_;
};

// ids [...] -> one-hot vectors of `depth` along `axis` of the result (-1: a new last axis),
// on_value at each id and off_value elsewhere. Not differentiable (ids are integers).
#define STRATA_ONE_HOT_OPTIONS(X)                                                      \
  X(int64_t, depth, 0, at_least(1), "classes: the length of each one-hot vector")      \
  X(double, on_value, 1, any(), "the value at each id")                                \
  X(double, off_value, 0, any(), "the value elsewhere")                                \
  X(int64_t, axis, -1, any(), "the result's axis of the vectors; -1: a new last axis") \
  X(DType, dtype, kFloat32, any(), "the result's dtype")
STRATA_OPTIONS(OneHotOptions, STRATA_ONE_HOT_OPTIONS);

class OneHot : public Layer {
 public:
  using Options = OneHotOptions;
  STRATA_LAYER_MOVABLE(OneHot)
  explicit OneHot(Options options, std::string name = "");
  explicit OneHot(int64_t depth, double on_value = 1, double off_value = 0, int64_t axis = -1, DType dtype = kFloat32,
                  std::string name = "");
  const Options& options() const { return options_; }

 protected:
  Tensor forward(const Tensor& ids) override;

 private:
  Options options_;
};

}  // namespace strata::nn

// Positional embeddings for sequences [batch, seq, dim]: the fixed sinusoidal table of
// Vaswani et al. and a learned one. Both layers return x plus the positions' rows.
namespace strata::nn {

// [length, dim]: row p is sin(p / base^(2i/dim)) at column 2i and cos(p / base^(2i/dim)) at
// column 2i + 1 (interleaved, as the paper and PyTorch's tutorial; an odd last column is sin).
Tensor sinusoidal_positions(int64_t length, int64_t dim, DType dtype = kFloat32, double base = 10000);

#define STRATA_SINUSOIDAL_POSITIONAL_EMBEDDING_OPTIONS(X) \
  X(double, base, 10000, at_least(0), "wavelengths' base (positive): position / base^(2i / dim)")
STRATA_OPTIONS(SinusoidalPositionalEmbeddingOptions, STRATA_SINUSOIDAL_POSITIONAL_EMBEDDING_OPTIONS);

// x [B, S, dim] -> x + sinusoidal_positions(S, dim). No weights; the table grows as needed.
class SinusoidalPositionalEmbedding : public Layer {
 public:
  using Options = SinusoidalPositionalEmbeddingOptions;
  STRATA_LAYER_MOVABLE(SinusoidalPositionalEmbedding)
  explicit SinusoidalPositionalEmbedding(Options options, std::string name = "");
  explicit SinusoidalPositionalEmbedding(double base = 10000, std::string name = "");
  const Options& options() const { return options_; }

 protected:
  Tensor forward(const Tensor& x) override;

 private:
  Options options_;
  Tensor table_;  // cached [length, dim] of the longest sequence seen
};

// x [B, S, dim] -> x + embeddings[0:S]; the weight "embeddings" is [max_length, dim], dim
// inferred. Initialised from a truncated normal of stddev 0.02 (BERT's, Keras-NLP's).
#define STRATA_LEARNED_POSITIONAL_EMBEDDING_OPTIONS(X)                               \
  X(int64_t, max_length, 0, at_least(1), "the longest sequence: rows of embeddings") \
  X(Initializer, init, (truncated_normal(0.0, 0.02)), not_saved(), "initializer of embeddings [max_length, dim]")
STRATA_OPTIONS(LearnedPositionalEmbeddingOptions, STRATA_LEARNED_POSITIONAL_EMBEDDING_OPTIONS);

class LearnedPositionalEmbedding : public Layer {
 public:
  using Options = LearnedPositionalEmbeddingOptions;
  STRATA_LAYER_MOVABLE(LearnedPositionalEmbedding)
  explicit LearnedPositionalEmbedding(Options options, std::string name = "");
  explicit LearnedPositionalEmbedding(int64_t max_length, std::string name = "",
                                      Initializer init = truncated_normal(0.0, 0.02));
  const Options& options() const { return options_; }
  Tensor embeddings;

 protected:
  void build(const Shape& input_shape) override;
  Tensor forward(const Tensor& x) override;

 private:
  Options options_;
};

}  // namespace strata::nn

// Losses over a sample of the classes, for large vocabularies (TensorFlow's nce_loss and
// sampled_softmax_loss, which TensorLayer's Word2vecEmbedding uses), and the log-uniform
// (Zipfian) candidate sampler they draw negatives from.
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

// Word-embedding layers of TensorLayer: AverageEmbedding (a sentence as the mean of its word
// vectors) and Word2vecEmbedding (skip-gram training with an NCE or sampled-softmax loss).
namespace strata::nn {

// ids [B, S] (int64 or int32) -> [B, embedding_size]: the mean of the embeddings of the ids
// that are not pad_value (pad_value may lie outside the vocabulary; an all-pad row gives
// zeros). Weight "embeddings" [vocabulary_size, embedding_size].
#define STRATA_AVERAGE_EMBEDDING_OPTIONS(X)                                      \
  X(int64_t, vocabulary_size, 0, at_least(1), "ids are in [0, vocabulary_size)") \
  X(int64_t, embedding_size, 0, at_least(1), "features of each id's vector")     \
  X(int64_t, pad_value, 0, any(), "the id of padding, left out of the mean")     \
  X(Initializer, e_init, (random_uniform(-0.1, 0.1)), not_saved(), "initializer of embeddings")
STRATA_OPTIONS(AverageEmbeddingOptions, STRATA_AVERAGE_EMBEDDING_OPTIONS);

class AverageEmbedding : public Layer {
 public:
  using Options = AverageEmbeddingOptions;
  STRATA_LAYER_MOVABLE(AverageEmbedding)
  explicit AverageEmbedding(Options options, std::string name = "");
  AverageEmbedding(int64_t vocabulary_size, int64_t embedding_size, int64_t pad_value = 0, std::string name = "",
                   Initializer e_init = random_uniform(-0.1, 0.1));
  const Options& options() const { return options_; }
  Tensor embeddings;

 protected:
  void build(const Shape& input_shape) override;
  Tensor forward(const Tensor& ids) override;

 private:
  Options options_;
};

enum class SampledLossKind { nce, sampled_softmax, none };

// A lookup table trained by predicting context words: layer(ids) gives the embeddings of ids
// of any shape; with_loss(ids [B], labels [B] or [B, num_true]) also gives the loss (mean over
// the batch) with num_sampled negatives drawn per call by log_uniform_candidates from the
// layer's generator (seeded when seed >= 0). Weights, as TensorLayer's: embeddings [V, E],
// nce_weights [V, E], nce_biases [V] (the last two not made when the loss is none).
// NCE keeps sampled classes equal to a label (TensorFlow's default); sampled softmax drops them.
#define STRATA_WORD2VEC_EMBEDDING_OPTIONS(X)                                                                        \
  X(int64_t, vocabulary_size, 0, at_least(1), "ids are in [0, vocabulary_size)")                                    \
  X(int64_t, embedding_size, 0, at_least(1), "features of each id's vector")                                        \
  X(int64_t, num_sampled, 64, at_least(1), "negatives drawn per call; at most vocabulary_size unless loss is none") \
  X(SampledLossKind, loss, SampledLossKind::nce, any(), "the training loss")                                        \
  X(int64_t, seed, -1, any(), "seeds the layer's generator of negatives; negative: the global generator")           \
  X(Initializer, e_init, (random_uniform(-1.0, 1.0)), not_saved(), "initializer of embeddings")                     \
  X(Initializer, nce_w_init, (truncated_normal(0.0, 0.03)), not_saved(), "initializer of nce_weights")              \
  X(Initializer, nce_b_init, zeros_init(), not_saved(), "initializer of nce_biases")
STRATA_OPTIONS(Word2vecEmbeddingOptions, STRATA_WORD2VEC_EMBEDDING_OPTIONS);

class Word2vecEmbedding : public Layer {
 public:
  using Options = Word2vecEmbeddingOptions;
  STRATA_LAYER_MOVABLE(Word2vecEmbedding)
  explicit Word2vecEmbedding(Options options, std::string name = "");
  Word2vecEmbedding(int64_t vocabulary_size, int64_t embedding_size, int64_t num_sampled = 64,
                    SampledLossKind loss = SampledLossKind::nce, int64_t seed = -1, std::string name = "",
                    Initializer e_init = random_uniform(-1.0, 1.0),
                    Initializer nce_w_init = truncated_normal(0.0, 0.03), Initializer nce_b_init = zeros_init());
  const Options& options() const { return options_; }
  Tensor embeddings, nce_weights, nce_biases;

  using Layer::operator();
  // {embeddings of ids [B, E], scalar loss}.
  std::pair<Tensor, Tensor> with_loss(const Tensor& ids, const Tensor& labels);

 protected:
  void build(const Shape& input_shape) override;
  void build_many(const std::vector<Shape>& input_shapes) override;
  Tensor forward(const Tensor& ids) override;
  Tensor forward_many(const std::vector<Tensor>& xs) override;

 private:
  Options options_;
  std::unique_ptr<Generator> gen_;
  Tensor last_loss_;
};

}  // namespace strata::nn

// Word2vec's fast path: skip-gram with negative sampling trained by a fused update over a
// whole corpus (Mikolov et al.'s word2vec.c and gensim's C routine), Hogwild threads writing
// the two tables without locks. The tables are those of Word2vecEmbedding: embeddings [V, E]
// (the input vectors, the ones to keep) and nce_weights [V, E] (the output vectors). Use it
// where the layer's with_loss path (one autograd graph per batch) is too slow for a corpus.
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
  int64_t window = 5;    // at most this many words either side; each centre draws 1..window
  int64_t negative = 5;  // negatives per (centre, context), drawn from counts^0.75 (a table)
  double alpha = 0.025;  // learning rate, falling linearly to min_alpha over all epochs
  double min_alpha = 0.0001;
  double sample = 1e-3;  // frequent words are dropped with word2vec's probability (0: keep all)
  int64_t epochs = 5;
  int64_t threads = 1;  // Hogwild: each thread a contiguous part of the corpus
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
