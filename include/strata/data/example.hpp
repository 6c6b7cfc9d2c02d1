// Example: one item of a data set (its tensors by position: image, label, ...); Reader: a
// one-pass cursor that pulls examples until the data ends. Datasets and streams both hand out
// Readers, so a loop written over one runs over the other.
#pragma once
#include <functional>
#include <iterator>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "strata/core/tensor.hpp"

namespace strata::data {

// The tensors of one example, by position (e.g. {image, label}).
using Example = std::vector<Tensor>;

// Pulls examples one by one: next() is std::nullopt once the data has ended. Copies of a
// Reader share its position. Not thread-safe: one consumer per reader.
class Reader {
 public:
  using NextFn = std::function<std::optional<Example>()>;
  Reader() = default;
  explicit Reader(NextFn next) : next_(std::move(next)) {}
  std::optional<Example> next() { return next_ ? next_() : std::nullopt; }

 private:
  NextFn next_;
};

// Input iterator over a Reader, for range-for loops: `for (const Example& ex : dataset)`.
class ExampleIterator {
 public:
  using iterator_category = std::input_iterator_tag;
  using value_type = Example;
  using difference_type = std::ptrdiff_t;
  using pointer = const Example*;
  using reference = const Example&;

  ExampleIterator() = default;  // the end
  explicit ExampleIterator(Reader reader) : state_(std::make_shared<State>(State{std::move(reader), {}})) {
    ++*this;
  }
  const Example& operator*() const { return *state_->current; }
  const Example* operator->() const { return &*state_->current; }
  ExampleIterator& operator++() {
    state_->current = state_->reader.next();
    if (!state_->current) state_.reset();
    return *this;
  }
  void operator++(int) { ++*this; }
  bool operator==(const ExampleIterator& o) const { return state_ == o.state_; }

 private:
  struct State {
    Reader reader;
    std::optional<Example> current;
  };
  std::shared_ptr<State> state_;
};

}  // namespace strata::data
