#include "strata/nn/word_embedding.hpp"

#include "strata/nn/layer_config.hpp"

#include "strata/nn/sampled_loss.hpp"
#include "strata/ops/elementwise.hpp"
#include "strata/ops/indexing.hpp"
#include "strata/ops/reduce.hpp"
#include "strata/ops/shape.hpp"

namespace strata::nn {
namespace {

bool is_index(DType t) { return t == kInt64 || t == kInt32; }

std::string sizes_str(int64_t v, int64_t e) { return std::to_string(v) + " and " + std::to_string(e); }

}  // namespace

AverageEmbedding::AverageEmbedding(int64_t vocabulary_size, int64_t embedding_size, int64_t pad_value,
                                   std::string name, Initializer e_init)
    : Layer("averageembedding", std::move(name)), vocabulary_size_(vocabulary_size), embedding_size_(embedding_size),
      pad_value_(pad_value), e_init_(std::move(e_init)) {
  expect(vocabulary_size > 0 && embedding_size > 0,
         "vocabulary_size and embedding_size must be positive, got " + sizes_str(vocabulary_size, embedding_size));
}

void AverageEmbedding::build(const Shape&) {
  embeddings = add_weight("embeddings", {vocabulary_size_, embedding_size_}, e_init_);
}

Tensor AverageEmbedding::forward(const Tensor& ids) {
  expect(is_index(ids.dtype()) && ids.dim() == 2, "expects integer ids (int64 or int32) of shape [batch, seq], got " +
                                                      ids.shape().str() + " " + dtype_name(ids.dtype()));
  Tensor keep = ne(ids, scalar_tensor(static_cast<double>(pad_value_), ids.dtype()));
  // Pads look up row 0 (so a pad id outside the vocabulary is fine) and are zeroed.
  Tensor rows = embedding(embeddings, where(keep, ids, zeros({}, ids.dtype())));
  Tensor weight = cast(keep, embeddings.dtype());
  Tensor total = sum(rows * unsqueeze(weight, -1), {1});
  return total / (sum(weight, {1}, true) + 1e-8);  // TensorLayer's epsilon: all-pad rows give zeros
}

Word2vecEmbedding::Word2vecEmbedding(int64_t vocabulary_size, int64_t embedding_size, int64_t num_sampled,
                                     SampledLossKind loss, int64_t seed, std::string name, Initializer e_init,
                                     Initializer nce_w_init, Initializer nce_b_init)
    : Layer("word2vecembedding", std::move(name)), vocabulary_size_(vocabulary_size), embedding_size_(embedding_size),
      num_sampled_(num_sampled), loss_kind_(loss), seed_(seed),
      gen_(seed >= 0 ? std::make_unique<Generator>(static_cast<uint64_t>(seed)) : nullptr), e_init_(std::move(e_init)),
      nce_w_init_(std::move(nce_w_init)), nce_b_init_(std::move(nce_b_init)) {
  expect(vocabulary_size > 0 && embedding_size > 0,
         "vocabulary_size and embedding_size must be positive, got " + sizes_str(vocabulary_size, embedding_size));
  expect(loss == SampledLossKind::none || (num_sampled > 0 && num_sampled <= vocabulary_size),
         "num_sampled must be in [1, vocabulary_size " + std::to_string(vocabulary_size) + "], got " +
             std::to_string(num_sampled));
}

void Word2vecEmbedding::build(const Shape&) {
  embeddings = add_weight("embeddings", {vocabulary_size_, embedding_size_}, e_init_);
  if (loss_kind_ == SampledLossKind::none) return;
  nce_weights = add_weight("nce_weights", {vocabulary_size_, embedding_size_}, nce_w_init_);
  nce_biases = add_weight("nce_biases", {vocabulary_size_}, nce_b_init_);
}

void Word2vecEmbedding::build_many(const std::vector<Shape>& shapes) {
  expect(shapes.size() == 1 || shapes.size() == 2, "takes ids, or ids and labels, got " +
                                                       std::to_string(shapes.size()) + " inputs");
  build(shapes[0]);
}

Tensor Word2vecEmbedding::forward(const Tensor& ids) {
  expect(is_index(ids.dtype()), std::string("expects integer ids (int64 or int32), got ") + dtype_name(ids.dtype()));
  return embedding(embeddings, ids);
}

Tensor Word2vecEmbedding::forward_many(const std::vector<Tensor>& xs) {
  expect(xs.size() == 1 || xs.size() == 2, "takes ids, or ids and labels, got " + std::to_string(xs.size()) + " inputs");
  Tensor y = forward(xs[0]);
  if (xs.size() == 1) return y;
  expect(loss_kind_ != SampledLossKind::none, "was made without a loss (SampledLossKind::none) but got labels");
  expect(xs[0].dim() == 1 && xs[1].size(0) == xs[0].size(0),
         "expects ids [batch] and labels [batch] or [batch, num_true], got " + xs[0].shape().str() + " and " +
             xs[1].shape().str());
  CandidateSample sample = log_uniform_candidates(xs[1], num_sampled_, vocabulary_size_, true, gen_.get());
  last_loss_ = loss_kind_ == SampledLossKind::nce
                   ? nce_loss(nce_weights, nce_biases, xs[1], y, sample, false)
                   : sampled_softmax_loss(nce_weights, nce_biases, xs[1], y, sample, true);
  return y;
}

std::pair<Tensor, Tensor> Word2vecEmbedding::with_loss(const Tensor& ids, const Tensor& labels) {
  Tensor y = Layer::operator()(std::vector<Tensor>{ids, labels});
  return {y, std::exchange(last_loss_, Tensor())};
}

using nlohmann::json;


void AverageEmbedding::get_config(json& c) const {
  c = {{"vocabulary_size", vocabulary_size_}, {"embedding_size", embedding_size_}, {"pad_value", pad_value_}};
}

STRATA_LAYER_CLASS("averageembedding", [](const json& c, const std::string& name) {
  return std::make_shared<AverageEmbedding>(c.at("vocabulary_size").get<int64_t>(),
                                            c.at("embedding_size").get<int64_t>(), c.at("pad_value").get<int64_t>(),
                                            name);
});

void Word2vecEmbedding::get_config(json& c) const {
  static const char* losses[] = {"nce", "sampled_softmax", "none"};
  c = {{"vocabulary_size", vocabulary_size_}, {"embedding_size", embedding_size_}, {"num_sampled", num_sampled_},
       {"loss", losses[static_cast<int>(loss_kind_)]}, {"seed", seed_}};
}

STRATA_LAYER_CLASS("word2vecembedding", [](const json& c, const std::string& name) {
  const std::string loss = c.at("loss").get<std::string>();
  STRATA_CHECK(loss == "nce" || loss == "sampled_softmax" || loss == "none",
               "loss: expected nce, sampled_softmax or none, got '", loss, "'");
  const SampledLossKind kind = loss == "nce"               ? SampledLossKind::nce
                               : loss == "sampled_softmax" ? SampledLossKind::sampled_softmax
                                                           : SampledLossKind::none;
  return std::make_shared<Word2vecEmbedding>(c.at("vocabulary_size").get<int64_t>(),
                                             c.at("embedding_size").get<int64_t>(), c.at("num_sampled").get<int64_t>(),
                                             kind, c.at("seed").get<int64_t>(), name);
});

}  // namespace strata::nn
