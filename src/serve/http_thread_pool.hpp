// The HTTP servers' connection threads: httplib's ThreadPool, except that a thread that cannot be
// started (EAGAIN under a memory or thread limit) is an error, not a hang. httplib's constructor
// let std::system_error escape with the threads it had started still waiting on its condition
// variable, whose destructor then waited for them forever: `strata serve` under `ulimit -v`
// hung instead of exiting. Include only where httplib's flags (HTTPLIB_CFLAGS) are set.
#pragma once
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include <httplib.h>

namespace strata::serve::detail {

class HttpThreadPool final : public httplib::TaskQueue {
 public:
  // Starts `threads` threads; throws strata::Error, with none left running, if one cannot start.
  explicit HttpThreadPool(size_t threads);
  ~HttpThreadPool() override;
  HttpThreadPool(const HttpThreadPool&) = delete;
  HttpThreadPool& operator=(const HttpThreadPool&) = delete;

  void enqueue(std::function<void()> fn) override;
  // Runs the queued connections to their end, then joins the threads.
  void shutdown() override;

 private:
  void work();
  std::mutex mu_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> jobs_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace strata::serve::detail
