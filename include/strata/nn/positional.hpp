// Positional embeddings for sequences [batch, seq, dim]: the fixed sinusoidal table of
// Vaswani et al. and a learned one. Both layers return x plus the positions' rows.
#pragma once
#include "strata/nn/layer.hpp"

namespace strata::nn {

// [length, dim]: row p is sin(p / base^(2i/dim)) at column 2i and cos(p / base^(2i/dim)) at
// column 2i + 1 (interleaved, as the paper and PyTorch's tutorial; an odd last column is sin).
Tensor sinusoidal_positions(int64_t length, int64_t dim, DType dtype = kFloat32, double base = 10000);

// x [B, S, dim] -> x + sinusoidal_positions(S, dim). No weights; the table grows as needed.
class SinusoidalPositionalEmbedding : public Layer {
 public:
  STRATA_LAYER_MOVABLE(SinusoidalPositionalEmbedding)
  void get_config(nlohmann::json& config) const override;
  explicit SinusoidalPositionalEmbedding(double base = 10000, std::string name = "");

 protected:
  Tensor forward(const Tensor& x) override;

 private:
  double base_;
  Tensor table_;  // cached [length, dim] of the longest sequence seen
};

// x [B, S, dim] -> x + embeddings[0:S]; the weight "embeddings" is [max_length, dim], dim
// inferred. Initialised from a truncated normal of stddev 0.02 (BERT's, Keras-NLP's).
class LearnedPositionalEmbedding : public Layer {
 public:
  STRATA_LAYER_MOVABLE(LearnedPositionalEmbedding)
  void get_config(nlohmann::json& config) const override;
  explicit LearnedPositionalEmbedding(int64_t max_length, std::string name = "",
                                      Initializer init = truncated_normal(0.0, 0.02));
  Tensor embeddings;

 protected:
  void build(const Shape& input_shape) override;
  Tensor forward(const Tensor& x) override;

 private:
  int64_t max_length_;
  Initializer init_;
};

}  // namespace strata::nn
