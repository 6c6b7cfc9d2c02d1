#include "http_thread_pool.hpp"

#include <system_error>

#include "strata/core/error.hpp"

namespace strata::serve::detail {

HttpThreadPool::HttpThreadPool(size_t threads) {
  try {
    threads_.reserve(threads);
    for (size_t i = 0; i < threads; ++i) threads_.emplace_back([this] { work(); });
  } catch (const std::system_error& e) {
    const size_t started = threads_.size();
    shutdown();
    throw Error("serve: cannot start HTTP thread " + std::to_string(started + 1) + " of " + std::to_string(threads) +
                ": " + e.what() + " (the process's memory or thread limit; lower --http-threads)");
  }
}

HttpThreadPool::~HttpThreadPool() { shutdown(); }

void HttpThreadPool::enqueue(std::function<void()> fn) {
  {
    std::lock_guard lock(mu_);
    jobs_.push_back(std::move(fn));
  }
  wake_.notify_one();
}

void HttpThreadPool::shutdown() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (auto& t : threads_)
    if (t.joinable()) t.join();
}

void HttpThreadPool::work() {
  for (;;) {
    std::function<void()> job;
    {
      std::unique_lock lock(mu_);
      wake_.wait(lock, [&] { return stopping_ || !jobs_.empty(); });
      if (jobs_.empty()) return;  // stopping, and nothing left to run
      job = std::move(jobs_.front());
      jobs_.pop_front();
    }
    job();
  }
}

}  // namespace strata::serve::detail
