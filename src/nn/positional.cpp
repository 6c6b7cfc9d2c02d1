#include "strata/nn/positional.hpp"

#include "strata/nn/layer_config.hpp"

#include <cmath>
#include <vector>

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

SinusoidalPositionalEmbedding::SinusoidalPositionalEmbedding(double base, std::string name)
    : Layer("sinusoidalpositionalembedding", std::move(name)), base_(base) {
  expect(base > 0, "base must be positive, got " + std::to_string(base));
}

Tensor SinusoidalPositionalEmbedding::forward(const Tensor& x) {
  expect(x.dim() == 3 && is_floating(x.dtype()),
         "expects floating inputs of shape [batch, seq, dim], got " + x.shape().str() + " " + dtype_name(x.dtype()));
  const int64_t s = x.size(1), d = x.size(2);
  if (!table_.defined() || table_.size(0) < s || table_.size(1) != d || table_.dtype() != x.dtype())
    table_ = sinusoidal_positions(s, d, x.dtype(), base_);
  return x + narrow(table_, 0, 0, s);
}

LearnedPositionalEmbedding::LearnedPositionalEmbedding(int64_t max_length, std::string name, Initializer init)
    : Layer("learnedpositionalembedding", std::move(name)), max_length_(max_length), init_(std::move(init)) {
  expect(max_length > 0, "max_length must be positive, got " + std::to_string(max_length));
}

void LearnedPositionalEmbedding::build(const Shape& s) {
  expect(s.size() == 3, "expects inputs of shape [batch, seq, dim], got " + s.str());
  embeddings = add_weight("embeddings", {max_length_, s.back()}, init_);
}

Tensor LearnedPositionalEmbedding::forward(const Tensor& x) {
  expect(x.dim() == 3 && x.size(1) <= max_length_ && x.size(2) == embeddings.size(1),
         "expected inputs of shape [batch, seq <= " + std::to_string(max_length_) + ", " +
             std::to_string(embeddings.size(1)) + "], got " + x.shape().str());
  return x + narrow(embeddings, 0, 0, x.size(1));
}

using nlohmann::json;


void SinusoidalPositionalEmbedding::get_config(json& c) const { c = {{"base", base_}}; }
void LearnedPositionalEmbedding::get_config(json& c) const { c = {{"max_length", max_length_}}; }

STRATA_LAYER_CLASS("sinusoidalpositionalembedding", [](const json& c, const std::string& name) {
  return std::make_shared<SinusoidalPositionalEmbedding>(c.at("base").get<double>(), name);
});
STRATA_LAYER_CLASS("learnedpositionalembedding", [](const json& c, const std::string& name) {
  return std::make_shared<LearnedPositionalEmbedding>(c.at("max_length").get<int64_t>(), name);
});

}  // namespace strata::nn
