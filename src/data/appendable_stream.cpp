#include "strata/data/appendable_stream.hpp"

#include <condition_variable>
#include <mutex>

namespace strata::data {

struct AppendableStream::State {
  mutable std::mutex mutex;
  std::condition_variable grown;
  std::vector<Example> examples;
  bool closed = false;
  std::vector<std::function<void(const Example&, int64_t)>> listeners;
};

AppendableStream::AppendableStream() : state_(std::make_shared<State>()) {}

void AppendableStream::append(Example example) {
  int64_t size;
  std::vector<std::function<void(const Example&, int64_t)>> listeners;
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    STRATA_CHECK(!state_->closed, "AppendableStream::append: the stream is closed");
    state_->examples.push_back(example);
    size = static_cast<int64_t>(state_->examples.size());
    listeners = state_->listeners;
  }
  state_->grown.notify_all();
  // Outside the lock, so that a listener may read the stream.
  for (const auto& fn : listeners) fn(example, size);
}

void AppendableStream::close() {
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    state_->closed = true;
  }
  state_->grown.notify_all();
}

bool AppendableStream::closed() const {
  std::lock_guard<std::mutex> lock(state_->mutex);
  return state_->closed;
}

int64_t AppendableStream::size() const {
  std::lock_guard<std::mutex> lock(state_->mutex);
  return static_cast<int64_t>(state_->examples.size());
}

Stream AppendableStream::stream(bool wait) const {
  auto state = state_;
  return Stream([state, wait] {
    auto pos = std::make_shared<size_t>(0);
    return Reader([state, pos, wait]() -> std::optional<Example> {
      std::unique_lock<std::mutex> lock(state->mutex);
      if (wait) state->grown.wait(lock, [&] { return *pos < state->examples.size() || state->closed; });
      if (*pos >= state->examples.size()) return std::nullopt;
      return state->examples[(*pos)++];
    });
  });
}

Dataset AppendableStream::snapshot() const {
  std::vector<Example> copy;
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    copy = state_->examples;
  }
  auto shared = std::make_shared<const std::vector<Example>>(std::move(copy));
  return Dataset(static_cast<int64_t>(shared->size()), [shared](int64_t i) { return (*shared)[i]; });
}

void AppendableStream::on_append(std::function<void(const Example&, int64_t)> fn) {
  std::lock_guard<std::mutex> lock(state_->mutex);
  state_->listeners.push_back(std::move(fn));
}

}  // namespace strata::data
