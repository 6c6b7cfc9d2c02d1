// Positional embeddings for sequences [batch, seq, dim]: the fixed sinusoidal table of
// Vaswani et al. and a learned one. Both layers return x plus the positions' rows.
#pragma once
#include "strata/nn/layer.hpp"
#include "strata/nn/options.hpp"

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
