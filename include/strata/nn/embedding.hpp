// Layers on integer ids: Embedding (a trainable lookup table, TensorLayer's Embedding) and
// OneHot (TensorLayer's OneHot, no weights).
#pragma once
#include "strata/nn/layer.hpp"

namespace strata::nn {

// ids of any shape (int64 or int32, in [0, vocabulary_size)) -> [..., embedding_size].
// The table "embeddings" is [vocabulary_size, embedding_size].
class Embedding : public Layer {
 public:
  STRATA_LAYER_MOVABLE(Embedding)
  void get_config(nlohmann::json& config) const override;
  Embedding(int64_t vocabulary_size, int64_t embedding_size, Initializer e_init = random_uniform(-0.1, 0.1),
            std::string name = "");
  Tensor embeddings;

 protected:
  void build(const Shape& input_shape) override;
  Tensor forward(const Tensor& ids) override;

 private:
  int64_t vocabulary_size_, embedding_size_;
  Initializer e_init_;
};

// ids [...] -> one-hot vectors of `depth` along `axis` of the result (-1: a new last axis),
// on_value at each id and off_value elsewhere. Not differentiable (ids are integers).
class OneHot : public Layer {
 public:
  STRATA_LAYER_MOVABLE(OneHot)
  void get_config(nlohmann::json& config) const override;
  explicit OneHot(int64_t depth, double on_value = 1, double off_value = 0, int64_t axis = -1, DType dtype = kFloat32,
                  std::string name = "");

 protected:
  Tensor forward(const Tensor& ids) override;

 private:
  int64_t depth_;
  double on_value_, off_value_;
  int64_t axis_;
  DType dtype_;
};

}  // namespace strata::nn
