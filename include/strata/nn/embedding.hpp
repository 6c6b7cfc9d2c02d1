// Layers on integer ids: Embedding (a trainable lookup table, TensorLayer's Embedding) and
// OneHot (TensorLayer's OneHot, no weights).
#pragma once
#include "strata/nn/layer.hpp"
#include "strata/nn/options.hpp"

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
