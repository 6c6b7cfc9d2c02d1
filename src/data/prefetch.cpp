// Stream::prefetch: a producer thread reads ahead into a bounded queue. Stream::map without
// keeping order is the same with several producers, each applying the function.
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "strata/core/intra_op_threads.hpp"
#include "strata/data/stream.hpp"

namespace strata::data {

namespace {

// Owned by the consumer's Reader; its destructor stops and joins the producers, which only
// hold a raw pointer to it. Producers stop between examples: a source that blocks forever (an
// open AppendableStream) must be closed first. Producers read the source one at a time and
// apply fn (when given) in parallel; examples are queued in the order they are finished.
class Prefetcher {
 public:
  Prefetcher(Reader source, int64_t capacity, int threads = 1, MapFn fn = {})
      : source_(std::move(source)), capacity_(capacity), fn_(std::move(fn)), running_(threads) {
    for (int t = 0; t < threads; ++t) threads_.emplace_back([this] { produce(); });
  }
  ~Prefetcher() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    space_.notify_all();
    for (std::thread& t : threads_) t.join();
  }

  std::optional<Example> next() {
    std::unique_lock<std::mutex> lock(mutex_);
    ready_.wait(lock, [&] { return !queue_.empty() || running_ == 0; });
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
    // Tensor work here runs on this thread alone, as in PyTorch's DataLoader workers: a producer
    // with an OpenMP team of its own would push the process's OpenMP threads past the cores, and
    // libgomp's idle threads would then sleep between every parallel region of the training loop
    // (a CNN training step +50-70% beside one idle team: bench_openmp_teams, docs/benchmarks.md).
    // The training loop has the cores; a parallel map asked for (map(fn, threads)) keeps its threads.
    const IntraOpThreadLimit one_thread(1);
    try {
      for (;;) {
        {
          std::unique_lock<std::mutex> lock(mutex_);
          space_.wait(lock, [&] { return stop_ || static_cast<int64_t>(queue_.size()) < capacity_; });
          if (stop_) break;
        }
        std::optional<Example> ex;
        {
          std::lock_guard<std::mutex> lock(source_mutex_);
          if (!source_ended_) ex = source_.next();
          source_ended_ = !ex;
        }
        if (!ex) break;
        if (fn_) ex = fn_(std::move(*ex));
        std::lock_guard<std::mutex> lock(mutex_);
        queue_.push_back(std::move(*ex));
        ready_.notify_one();
      }
    } catch (...) {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!error_) error_ = std::current_exception();
      stop_ = true;  // the other producers end too
      space_.notify_all();
    }
    std::lock_guard<std::mutex> lock(mutex_);
    --running_;
    ready_.notify_all();
  }

  Reader source_;
  const int64_t capacity_;
  const MapFn fn_;
  std::mutex source_mutex_;  // guards source_ and source_ended_
  bool source_ended_ = false;
  std::mutex mutex_;
  std::condition_variable ready_, space_;
  std::deque<Example> queue_;
  int running_;  // producers not yet ended
  bool stop_ = false;
  std::exception_ptr error_;
  std::vector<std::thread> threads_;  // last: started once everything above exists
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

Stream Stream::map_unordered(MapFn fn, int threads) const {
  Stream src = *this;
  return Stream([src, fn, threads] {
    auto workers = std::make_shared<Prefetcher>(src.open(), 4 * threads, threads, fn);
    return Reader([workers] { return workers->next(); });
  });
}

}  // namespace strata::data
