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

// An example's x and y; y undefined for an example of x alone, which predict takes (fit and
// evaluate refuse it when they reach the loss).
std::pair<Tensor, Tensor> x_and_y(const data::Example& ex) {
  STRATA_CHECK(ex.size() == 1 || ex.size() == 2, "train: expected examples of two tensors (x, y), or of x alone ",
               "for predict, got ", ex.size(), " tensors");
  return {ex[0], ex.size() == 2 ? ex[1] : Tensor()};
}

// Batches 0 .. count - 1 of a random-access source, in order.
Data::Batches in_order(int64_t count, std::function<std::pair<Tensor, Tensor>(int64_t)> get) {
  return {count, [count, get = std::move(get), i = int64_t{0}]() mutable -> std::optional<std::pair<Tensor, Tensor>> {
            if (i == count) return std::nullopt;
            return get(i++);
          }};
}

}  // namespace

Data::Batches Data::batches(int64_t batch_size, std::optional<uint64_t> shuffle_seed) const {
  STRATA_CHECK(batch_size >= 1, "train: batch_size must be >= 1, got ", batch_size);
  if (stream_) {
    auto reader = std::make_shared<data::Reader>(stream_->batch(batch_size).open());
    return {-1, [reader]() -> std::optional<std::pair<Tensor, Tensor>> {
              std::optional<data::Example> ex = reader->next();
              if (!ex) return std::nullopt;
              return x_and_y(*ex);
            }};
  }
  const int64_t n = size(), count = batch_count(batch_size);
  if (dataset_) {
    const data::Dataset batched = (shuffle_seed ? dataset_->shuffle(*shuffle_seed) : *dataset_).batch(batch_size);
    return in_order(count, [batched](int64_t i) { return x_and_y(batched.get(i)); });
  }
  const Tensor x = x_, y = y_;
  if (!shuffle_seed) {
    return in_order(count, [x, y, n, batch_size](int64_t i) {
      const int64_t start = i * batch_size, len = std::min(batch_size, n - start);
      return std::pair<Tensor, Tensor>(x.narrow(0, start, len), y.narrow(0, start, len));
    });
  }
  // Gathering rows by a permutation copies each batch once, with no per-example tensors.
  const Tensor order = from_vector(data::permutation(n, *shuffle_seed));
  return in_order(count, [x, y, n, batch_size, order](int64_t i) {
    const int64_t start = i * batch_size, len = std::min(batch_size, n - start);
    const Tensor idx = order.narrow(0, start, len);
    return std::pair<Tensor, Tensor>(index_select(x, 0, idx), index_select(y, 0, idx));
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
  return {Data(x_.narrow(0, 0, n - tail), y_.narrow(0, 0, n - tail)),
          Data(x_.narrow(0, n - tail, tail), y_.narrow(0, n - tail, tail))};
}

}  // namespace strata::train
