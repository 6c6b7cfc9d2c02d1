#include "strata/nn/embedding.hpp"

#include "strata/nn/layer_config.hpp"

#include "strata/ops/elementwise.hpp"
#include "strata/ops/indexing.hpp"
#include "strata/ops/shape.hpp"

namespace strata::nn {
namespace {

bool is_index(DType t) { return t == kInt64 || t == kInt32; }

}  // namespace

Embedding::Embedding(int64_t vocabulary_size, int64_t embedding_size, Initializer e_init, std::string name)
    : Layer("embedding", std::move(name)), vocabulary_size_(vocabulary_size), embedding_size_(embedding_size),
      e_init_(std::move(e_init)) {
  expect(vocabulary_size > 0 && embedding_size > 0, "vocabulary_size and embedding_size must be positive, got " +
                                                        std::to_string(vocabulary_size) + " and " +
                                                        std::to_string(embedding_size));
}

void Embedding::build(const Shape&) {
  embeddings = add_weight("embeddings", {vocabulary_size_, embedding_size_}, e_init_);
}

Tensor Embedding::forward(const Tensor& ids) {
  expect(is_index(ids.dtype()), std::string("expects integer ids (int64 or int32), got ") + dtype_name(ids.dtype()));
  return embedding(embeddings, ids);
}

OneHot::OneHot(int64_t depth, double on_value, double off_value, int64_t axis, DType dtype, std::string name)
    : Layer("onehot", std::move(name)), depth_(depth), on_value_(on_value), off_value_(off_value), axis_(axis),
      dtype_(dtype) {
  expect(depth > 0, "depth must be positive, got " + std::to_string(depth));
}

Tensor OneHot::forward(const Tensor& ids) {
  expect(is_index(ids.dtype()), std::string("expects integer ids (int64 or int32), got ") + dtype_name(ids.dtype()));
  const int64_t rank = ids.dim() + 1;
  const int64_t axis = axis_ < 0 ? axis_ + rank : axis_;
  expect(axis >= 0 && axis < rank, "axis " + std::to_string(axis_) + " is out of range for ids of shape " +
                                       ids.shape().str() + " (result rank " + std::to_string(rank) + ")");
  Tensor y = one_hot(ids, depth_, dtype_);
  if (on_value_ != 1 || off_value_ != 0) y = y * (on_value_ - off_value_) + off_value_;
  if (axis == rank - 1) return y;
  Shape order;  // the new last axis moved to `axis`
  for (int64_t d = 0; d < rank - 1; ++d) {
    if (d == axis) order.push_back(rank - 1);
    order.push_back(d);
  }
  return contiguous(permute(y, order));
}

using nlohmann::json;


void Embedding::get_config(json& c) const {
  c = {{"vocabulary_size", vocabulary_size_}, {"embedding_size", embedding_size_}};
}

STRATA_LAYER_CLASS("embedding", [](const json& c, const std::string& name) {
  return std::make_shared<Embedding>(c.at("vocabulary_size").get<int64_t>(), c.at("embedding_size").get<int64_t>(),
                                     random_uniform(-0.1, 0.1), name);
});

void OneHot::get_config(json& c) const {
  c = {{"depth", depth_}, {"on_value", on_value_}, {"off_value", off_value_}, {"axis", axis_},
       {"dtype", dtype_config(dtype_)}};
}

STRATA_LAYER_CLASS("onehot", [](const json& c, const std::string& name) {
  return std::make_shared<OneHot>(c.at("depth").get<int64_t>(), c.at("on_value").get<double>(),
                                  c.at("off_value").get<double>(), c.at("axis").get<int64_t>(),
                                  dtype_from(c.at("dtype")), name);
});

}  // namespace strata::nn
