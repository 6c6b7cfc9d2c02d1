#include "strata/nn/layers/embedding.hpp"

#include "strata/nn/option_table.hpp"
#include "strata/ops/elementwise.hpp"
#include "strata/ops/indexing.hpp"
#include "strata/ops/reduce.hpp"
#include "strata/ops/shape.hpp"

namespace strata::nn {

AverageEmbedding::AverageEmbedding(Options options, std::string name)
    : Layer("averageembedding", std::move(name)), options_(std::move(options)) {
  check_options(options_, *this);
}

AverageEmbedding::AverageEmbedding(int64_t vocabulary_size, int64_t embedding_size, int64_t pad_value, std::string name,
                                   Initializer e_init)
    : AverageEmbedding(Options{.vocabulary_size = vocabulary_size,
                               .embedding_size = embedding_size,
                               .pad_value = pad_value,
                               .e_init = std::move(e_init)},
                       std::move(name)) {}

void AverageEmbedding::build(const Shape&) {
  embeddings = add_weight("embeddings", {options_.vocabulary_size, options_.embedding_size}, options_.e_init);
}

Tensor AverageEmbedding::forward(const Tensor& ids) {
  expect(is_index_dtype(ids.dtype()) && ids.dim() == 2,
         "expects integer ids (int64 or int32) of shape [batch, seq], got " + ids.shape().str() + " " +
             dtype_name(ids.dtype()));
  Tensor keep = ne(ids, scalar_tensor(static_cast<double>(options_.pad_value), ids.dtype()));
  // Pads look up row 0 (so a pad id outside the vocabulary is fine) and are zeroed.
  Tensor rows = embedding(embeddings, where(keep, ids, zeros({}, ids.dtype())));
  Tensor weight = cast(keep, embeddings.dtype());
  Tensor total = sum(rows * unsqueeze(weight, -1), {1});
  return total / (sum(weight, {1}, true) + 1e-8);  // TensorLayer's epsilon: all-pad rows give zeros
}

Word2vecEmbedding::Word2vecEmbedding(Options options, std::string name)
    : Layer("word2vecembedding", std::move(name)),
      options_(std::move(options)),
      gen_(options_.seed >= 0 ? std::make_unique<Generator>(static_cast<uint64_t>(options_.seed)) : nullptr) {
  check_options(options_, *this);
  expect(options_.loss == SampledLossKind::none || options_.num_sampled <= options_.vocabulary_size,
         "num_sampled must be in [1, vocabulary_size " + std::to_string(options_.vocabulary_size) + "], got " +
             std::to_string(options_.num_sampled));
}

Word2vecEmbedding::Word2vecEmbedding(int64_t vocabulary_size, int64_t embedding_size, int64_t num_sampled,
                                     SampledLossKind loss, int64_t seed, std::string name, Initializer e_init,
                                     Initializer nce_w_init, Initializer nce_b_init)
    : Word2vecEmbedding(Options{.vocabulary_size = vocabulary_size,
                                .embedding_size = embedding_size,
                                .num_sampled = num_sampled,
                                .loss = loss,
                                .seed = seed,
                                .e_init = std::move(e_init),
                                .nce_w_init = std::move(nce_w_init),
                                .nce_b_init = std::move(nce_b_init)},
                        std::move(name)) {}

void Word2vecEmbedding::build(const Shape&) {
  const int64_t V = options_.vocabulary_size, E = options_.embedding_size;
  embeddings = add_weight("embeddings", {V, E}, options_.e_init);
  if (options_.loss == SampledLossKind::none) return;
  nce_weights = add_weight("nce_weights", {V, E}, options_.nce_w_init);
  nce_biases = add_weight("nce_biases", {V}, options_.nce_b_init);
}

void Word2vecEmbedding::build_many(const std::vector<Shape>& shapes) {
  expect(shapes.size() == 1 || shapes.size() == 2,
         "takes ids, or ids and labels, got " + std::to_string(shapes.size()) + " inputs");
  build(shapes[0]);
}

Tensor Word2vecEmbedding::forward(const Tensor& ids) {
  expect(is_index_dtype(ids.dtype()),
         std::string("expects integer ids (int64 or int32), got ") + dtype_name(ids.dtype()));
  return embedding(embeddings, ids);
}

Tensor Word2vecEmbedding::forward_many(const std::vector<Tensor>& xs) {
  expect(xs.size() == 1 || xs.size() == 2,
         "takes ids, or ids and labels, got " + std::to_string(xs.size()) + " inputs");
  Tensor y = forward(xs[0]);
  if (xs.size() == 1) return y;
  expect(options_.loss != SampledLossKind::none, "was made without a loss (SampledLossKind::none) but got labels");
  expect(xs[0].dim() == 1 && xs[1].size(0) == xs[0].size(0),
         "expects ids [batch] and labels [batch] or [batch, num_true], got " + xs[0].shape().str() + " and " +
             xs[1].shape().str());
  CandidateSample sample =
      log_uniform_candidates(xs[1], options_.num_sampled, options_.vocabulary_size, true, gen_.get());
  last_loss_ = options_.loss == SampledLossKind::nce
                   ? nce_loss(nce_weights, nce_biases, xs[1], y, sample, false)
                   : sampled_softmax_loss(nce_weights, nce_biases, xs[1], y, sample, true);
  return y;
}

std::pair<Tensor, Tensor> Word2vecEmbedding::with_loss(const Tensor& ids, const Tensor& labels) {
  Tensor y = Layer::operator()(std::vector<Tensor>{ids, labels});
  return {y, std::exchange(last_loss_, Tensor())};
}

STRATA_DEFINE_OPTIONS(AverageEmbeddingOptions, STRATA_AVERAGE_EMBEDDING_OPTIONS)
STRATA_LAYER("averageembedding", AverageEmbedding);

STRATA_ENUM_OPTION(SampledLossKind, {SampledLossKind::nce, "nce"},
                   {SampledLossKind::sampled_softmax, "sampled_softmax"}, {SampledLossKind::none, "none"});
STRATA_DEFINE_OPTIONS(Word2vecEmbeddingOptions, STRATA_WORD2VEC_EMBEDDING_OPTIONS)
STRATA_LAYER("word2vecembedding", Word2vecEmbedding);

}  // namespace strata::nn
