#include "strata/nn/layers/embedding.hpp"

#include <cmath>
#include <vector>

#include "strata/nn/option_table.hpp"
#include "strata/ops/elementwise.hpp"
#include "strata/ops/shape.hpp"

namespace strata::nn {

Tensor sinusoidal_positions(int64_t length, int64_t dim, DType dtype, double base) {
  STRATA_CHECK(length >= 0 && dim > 0, "sinusoidal_positions: length must be non-negative and dim positive, got ",
               length, " and ", dim);
  STRATA_CHECK(is_floating(dtype), "sinusoidal_positions: dtype must be floating, got ", dtype_name(dtype));
  std::vector<double> table(length * dim);
  for (int64_t p = 0; p < length; ++p)
    for (int64_t c = 0; c < dim; ++c) {
      double angle = p / std::pow(base, static_cast<double>(c - c % 2) / dim);
      table[p * dim + c] = c % 2 == 0 ? std::sin(angle) : std::cos(angle);
    }
  return cast(from_vector(table, {length, dim}), dtype);
}

SinusoidalPositionalEmbedding::SinusoidalPositionalEmbedding(Options options, std::string name)
    : Layer("sinusoidalpositionalembedding", std::move(name)), options_(std::move(options)) {
  check_options(options_, *this);
  expect(options_.base > 0, "base must be positive, got " + std::to_string(options_.base));
}

SinusoidalPositionalEmbedding::SinusoidalPositionalEmbedding(double base, std::string name)
    : SinusoidalPositionalEmbedding(Options{.base = base}, std::move(name)) {}

Tensor SinusoidalPositionalEmbedding::forward(const Tensor& x) {
  expect(x.dim() == 3 && is_floating(x.dtype()),
         "expects floating inputs of shape [batch, seq, dim], got " + x.shape().str() + " " + dtype_name(x.dtype()));
  const int64_t s = x.size(1), d = x.size(2);
  if (!table_.defined() || table_.size(0) < s || table_.size(1) != d || table_.dtype() != x.dtype())
    table_ = sinusoidal_positions(s, d, x.dtype(), options_.base);
  return x + narrow(table_, 0, 0, s);
}

LearnedPositionalEmbedding::LearnedPositionalEmbedding(Options options, std::string name)
    : Layer("learnedpositionalembedding", std::move(name)), options_(std::move(options)) {
  check_options(options_, *this);
}

LearnedPositionalEmbedding::LearnedPositionalEmbedding(int64_t max_length, std::string name, Initializer init)
    : LearnedPositionalEmbedding(Options{.max_length = max_length, .init = std::move(init)}, std::move(name)) {}

void LearnedPositionalEmbedding::build(const Shape& s) {
  expect(s.size() == 3, "expects inputs of shape [batch, seq, dim], got " + s.str());
  embeddings = add_weight("embeddings", {options_.max_length, s.back()}, options_.init);
}

Tensor LearnedPositionalEmbedding::forward(const Tensor& x) {
  expect(x.dim() == 3 && x.size(1) <= options_.max_length && x.size(2) == embeddings.size(1),
         "expected inputs of shape [batch, seq <= " + std::to_string(options_.max_length) + ", " +
             std::to_string(embeddings.size(1)) + "], got " + x.shape().str());
  return x + narrow(embeddings, 0, 0, x.size(1));
}

STRATA_DEFINE_OPTIONS(SinusoidalPositionalEmbeddingOptions, STRATA_SINUSOIDAL_POSITIONAL_EMBEDDING_OPTIONS)
STRATA_LAYER("sinusoidalpositionalembedding", SinusoidalPositionalEmbedding);
STRATA_DEFINE_OPTIONS(LearnedPositionalEmbeddingOptions, STRATA_LEARNED_POSITIONAL_EMBEDDING_OPTIONS)
STRATA_LAYER("learnedpositionalembedding", LearnedPositionalEmbedding);

}  // namespace strata::nn
