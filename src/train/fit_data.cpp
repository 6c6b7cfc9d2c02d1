// train::Data: batches of (x, y) from tensors, a Dataset or a Stream.
#include <cmath>
#include <memory>

#include "strata/core/error.hpp"
#include "strata/core/factory.hpp"
#include "strata/ops/indexing.hpp"
#include "strata/ops/shape.hpp"
#include "strata/train/fit.hpp"

namespace strata::train {

Data::Data(Tensor x, Tensor y) : x_(std::move(x)), y_(std::move(y)) {
  STRATA_CHECK(x_.defined() && y_.defined(), "train::Data: x and y must be defined tensors");
  STRATA_CHECK(x_.dim() >= 1 && y_.dim() >= 1 && x_.size(0) == y_.size(0),
               "train::Data: x and y must have the same size along axis 0 (one row per example), got x ",
               x_.shape().str(), " and y ", y_.shape().str());
}

Data::Data(Tensor x, Tensor y, Tensor sample_weight) : Data(std::move(x), std::move(y)) {
  STRATA_CHECK(sample_weight.defined() && sample_weight.dim() == 1 && sample_weight.size(0) == x_.size(0),
               "train::Data: sample_weight must be one weight per example, [", x_.size(0), "], got ",
               sample_weight.defined() ? sample_weight.shape().str() : std::string("an undefined tensor"));
  sample_weight_ = std::move(sample_weight);
}

Data::Data(data::Dataset dataset) : dataset_(std::move(dataset)) {}

Data::Data(data::Stream stream) : stream_(std::move(stream)) {}

int64_t Data::size() const {
  if (stream_) return -1;
  if (dataset_) return dataset_->size();
  return x_.defined() ? x_.size(0) : 0;
}

int64_t Data::batch_count(int64_t batch_size) const {
  const int64_t n = size();
  return n < 0 ? -1 : (n + batch_size - 1) / batch_size;
}

namespace {

// A batched example as x, y and sample weights: y undefined for examples of x alone, which
// predict takes (fit and evaluate refuse them when they reach the loss).
Data::Batch as_batch(const data::Example& ex) {
  STRATA_CHECK(ex.size() >= 1 && ex.size() <= 3, "train: expected examples of two tensors (x, y), three (x, y, ",
               "sample weight) or x alone for predict, got ", ex.size(), " tensors");
  return {ex[0], ex.size() >= 2 ? ex[1] : Tensor(), ex.size() == 3 ? ex[2] : Tensor()};
}

// Batches 0 .. count - 1 of a random-access source, in order.
Data::Batches in_order(int64_t count, std::function<Data::Batch(int64_t)> get) {
  return {count, [count, get = std::move(get), i = int64_t{0}]() mutable -> std::optional<Data::Batch> {
            if (i == count) return std::nullopt;
            return get(i++);
          }};
}

// Rows [start, start + len) of a tensor that may be undefined.
Tensor rows_of(const Tensor& t, int64_t start, int64_t len) { return t.defined() ? t.narrow(0, start, len) : t; }

}  // namespace

Data::Batches Data::batches(int64_t batch_size, std::optional<uint64_t> shuffle_seed) const {
  STRATA_CHECK(batch_size >= 1, "train: batch_size must be >= 1, got ", batch_size);
  if (stream_) {
    auto reader = std::make_shared<data::Reader>(stream_->batch(batch_size).open());
    return {-1, [reader]() -> std::optional<Batch> {
              std::optional<data::Example> ex = reader->next();
              if (!ex) return std::nullopt;
              return as_batch(*ex);
            }};
  }
  const int64_t n = size(), count = batch_count(batch_size);
  if (dataset_) {
    const data::Dataset batched = (shuffle_seed ? dataset_->shuffle(*shuffle_seed) : *dataset_).batch(batch_size);
    return in_order(count, [batched](int64_t i) { return as_batch(batched.get(i)); });
  }
  const Batch all{x_, y_, sample_weight_};
  if (!shuffle_seed) {
    return in_order(count, [all, n, batch_size](int64_t i) {
      const int64_t start = i * batch_size, len = std::min(batch_size, n - start);
      return Batch{rows_of(all.x, start, len), rows_of(all.y, start, len), rows_of(all.sample_weight, start, len)};
    });
  }
  // Gathering rows by a permutation copies each batch once, with no per-example tensors.
  const Tensor order = from_vector(data::permutation(n, *shuffle_seed));
  return in_order(count, [all, n, batch_size, order](int64_t i) {
    const int64_t start = i * batch_size, len = std::min(batch_size, n - start);
    const Tensor idx = order.narrow(0, start, len);
    const auto gather = [&idx](const Tensor& t) { return t.defined() ? index_select(t, 0, idx) : t; };
    return Batch{gather(all.x), gather(all.y), gather(all.sample_weight)};
  });
}

std::pair<Data, Data> Data::split_tail(double fraction) const {
  STRATA_CHECK(fraction > 0 && fraction < 1, "train: validation_split must be in (0, 1), got ", fraction);
  STRATA_CHECK(!stream_, "train: validation_split needs data of known size, not a stream: give validation_data");
  const int64_t n = size();
  const int64_t tail = static_cast<int64_t>(std::floor(n * fraction));
  STRATA_CHECK(tail >= 1 && tail < n, "train: validation_split ", fraction, " of ", n,
               " examples leaves no training or no validation example");
  if (dataset_) return {Data(dataset_->take(n - tail)), Data(dataset_->skip(n - tail))};
  Data head(x_.narrow(0, 0, n - tail), y_.narrow(0, 0, n - tail));
  Data rest(x_.narrow(0, n - tail, tail), y_.narrow(0, n - tail, tail));
  head.sample_weight_ = rows_of(sample_weight_, 0, n - tail);
  rest.sample_weight_ = rows_of(sample_weight_, n - tail, tail);
  return {head, rest};
}

}  // namespace strata::train
