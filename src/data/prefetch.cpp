// Stream::prefetch: a producer thread reads ahead into a bounded queue.
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>
#include <utility>

#include "strata/data/stream.hpp"

namespace strata::data {

namespace {

// Owned by the consumer's Reader; its destructor stops and joins the producer, which only
// holds a raw pointer to it. The producer stops between examples: a source that blocks
// forever (an open AppendableStream) must be closed first.
class Prefetcher {
 public:
  Prefetcher(Reader source, int64_t capacity) : source_(std::move(source)), capacity_(capacity) {
    thread_ = std::thread([this] { produce(); });
  }
  ~Prefetcher() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    space_.notify_all();
    thread_.join();
  }

  std::optional<Example> next() {
    std::unique_lock<std::mutex> lock(mutex_);
    ready_.wait(lock, [&] { return !queue_.empty() || ended_; });
    if (queue_.empty()) {
      if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
      return std::nullopt;
    }
    Example ex = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    space_.notify_one();
    return ex;
  }

 private:
  void produce() {
    try {
      for (;;) {
        {
          std::unique_lock<std::mutex> lock(mutex_);
          space_.wait(lock, [&] { return stop_ || static_cast<int64_t>(queue_.size()) < capacity_; });
          if (stop_) break;
        }
        auto ex = source_.next();
        std::lock_guard<std::mutex> lock(mutex_);
        if (!ex) break;
        queue_.push_back(std::move(*ex));
        ready_.notify_one();
      }
    } catch (...) {
      std::lock_guard<std::mutex> lock(mutex_);
      error_ = std::current_exception();
    }
    std::lock_guard<std::mutex> lock(mutex_);
    ended_ = true;
    ready_.notify_all();
  }

  Reader source_;
  const int64_t capacity_;
  std::mutex mutex_;
  std::condition_variable ready_, space_;
  std::deque<Example> queue_;
  bool ended_ = false, stop_ = false;
  std::exception_ptr error_;
  std::thread thread_;  // last: started once everything above exists
};

}  // namespace

Stream Stream::prefetch(int64_t capacity) const {
  STRATA_CHECK(capacity >= 1, "Stream::prefetch: capacity must be >= 1, got ", capacity);
  Stream src = *this;
  return Stream([src, capacity] {
    auto prefetcher = std::make_shared<Prefetcher>(src.open(), capacity);
    return Reader([prefetcher] { return prefetcher->next(); });
  });
}

}  // namespace strata::data
