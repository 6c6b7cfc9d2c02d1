#include "strata/nn/layers/embedding.hpp"

#include "strata/nn/option_table.hpp"

#include "strata/ops/elementwise.hpp"
#include "strata/ops/indexing.hpp"
#include "strata/ops/shape.hpp"

namespace strata::nn {

Embedding::Embedding(Options options, std::string name)
    : Layer("embedding", std::move(name)), options_(std::move(options)) {
  check_options(options_, *this);
}

Embedding::Embedding(int64_t vocabulary_size, int64_t embedding_size, Initializer e_init, std::string name)
    : Embedding(
          Options{.vocabulary_size = vocabulary_size, .embedding_size = embedding_size, .e_init = std::move(e_init)},
          std::move(name)) {}

void Embedding::build(const Shape&) {
  embeddings = add_weight("embeddings", {options_.vocabulary_size, options_.embedding_size}, options_.e_init);
}

Tensor Embedding::forward(const Tensor& ids) {
  expect(is_index_dtype(ids.dtype()),
         std::string("expects integer ids (int64 or int32), got ") + dtype_name(ids.dtype()));
  return embedding(embeddings, ids);
}

OneHot::OneHot(Options options, std::string name) : Layer("onehot", std::move(name)), options_(std::move(options)) {
  check_options(options_, *this);
}

OneHot::OneHot(int64_t depth, double on_value, double off_value, int64_t axis, DType dtype, std::string name)
    : OneHot(Options{.depth = depth, .on_value = on_value, .off_value = off_value, .axis = axis, .dtype = dtype},
             std::move(name)) {}

Tensor OneHot::forward(const Tensor& ids) {
  expect(is_index_dtype(ids.dtype()),
         std::string("expects integer ids (int64 or int32), got ") + dtype_name(ids.dtype()));
  const int64_t rank = ids.dim() + 1;
  const int64_t axis = options_.axis < 0 ? options_.axis + rank : options_.axis;
  expect(axis >= 0 && axis < rank, "axis " + std::to_string(options_.axis) + " is out of range for ids of shape " +
                                       ids.shape().str() + " (result rank " + std::to_string(rank) + ")");
  Tensor y = one_hot(ids, options_.depth, options_.dtype);
  const double on = options_.on_value, off = options_.off_value;
  if (on != 1 || off != 0) y = y * (on - off) + off;
  if (axis == rank - 1) return y;
  Shape order;  // the new last axis moved to `axis`
  for (int64_t d = 0; d < rank - 1; ++d) {
    if (d == axis) order.push_back(rank - 1);
    order.push_back(d);
  }
  return contiguous(permute(y, order));
}

STRATA_DEFINE_OPTIONS(EmbeddingOptions, STRATA_EMBEDDING_OPTIONS)
STRATA_LAYER("embedding", Embedding);
STRATA_DEFINE_OPTIONS(OneHotOptions, STRATA_ONE_HOT_OPTIONS)
STRATA_LAYER("onehot", OneHot);

}  // namespace strata::nn
