// Word-embedding layers of TensorLayer: AverageEmbedding (a sentence as the mean of its word
// vectors) and Word2vecEmbedding (skip-gram training with an NCE or sampled-softmax loss).
#pragma once
#include <memory>
#include <utility>

#include "strata/nn/layer.hpp"

namespace strata::nn {

// ids [B, S] (int64 or int32) -> [B, embedding_size]: the mean of the embeddings of the ids
// that are not pad_value (pad_value may lie outside the vocabulary; an all-pad row gives
// zeros). Weight "embeddings" [vocabulary_size, embedding_size].
class AverageEmbedding : public Layer {
 public:
  STRATA_LAYER_MOVABLE(AverageEmbedding)
  void get_config(nlohmann::json& config) const override;
  AverageEmbedding(int64_t vocabulary_size, int64_t embedding_size, int64_t pad_value = 0, std::string name = "",
                   Initializer e_init = random_uniform(-0.1, 0.1));
  Tensor embeddings;

 protected:
  void build(const Shape& input_shape) override;
  Tensor forward(const Tensor& ids) override;

 private:
  int64_t vocabulary_size_, embedding_size_, pad_value_;
  Initializer e_init_;
};

enum class SampledLossKind { nce, sampled_softmax, none };

// A lookup table trained by predicting context words: layer(ids) gives the embeddings of ids
// of any shape; with_loss(ids [B], labels [B] or [B, num_true]) also gives the loss (mean over
// the batch) with num_sampled negatives drawn per call by log_uniform_candidates from the
// layer's generator (seeded when seed >= 0). Weights, as TensorLayer's: embeddings [V, E],
// nce_weights [V, E], nce_biases [V] (the last two not made when the loss is none).
// NCE keeps sampled classes equal to a label (TensorFlow's default); sampled softmax drops them.
class Word2vecEmbedding : public Layer {
 public:
  STRATA_LAYER_MOVABLE(Word2vecEmbedding)
  void get_config(nlohmann::json& config) const override;
  Word2vecEmbedding(int64_t vocabulary_size, int64_t embedding_size, int64_t num_sampled = 64,
                    SampledLossKind loss = SampledLossKind::nce, int64_t seed = -1, std::string name = "",
                    Initializer e_init = random_uniform(-1.0, 1.0), Initializer nce_w_init = truncated_normal(0.0, 0.03),
                    Initializer nce_b_init = zeros_init());
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
  int64_t vocabulary_size_, embedding_size_, num_sampled_;
  SampledLossKind loss_kind_;
  int64_t seed_;
  std::unique_ptr<Generator> gen_;
  Initializer e_init_, nce_w_init_, nce_b_init_;
  Tensor last_loss_;
};

}  // namespace strata::nn
