// Word-embedding layers of TensorLayer: AverageEmbedding (a sentence as the mean of its word
// vectors) and Word2vecEmbedding (skip-gram training with an NCE or sampled-softmax loss).
#pragma once
#include <memory>
#include <utility>

#include "strata/nn/layer.hpp"
#include "strata/nn/options.hpp"

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
  X(SampledLossKind, loss, SampledLossKind::nce, any(), "the training loss")   \
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
                    Initializer e_init = random_uniform(-1.0, 1.0), Initializer nce_w_init = truncated_normal(0.0, 0.03),
                    Initializer nce_b_init = zeros_init());
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
