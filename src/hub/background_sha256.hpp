// SHA-256 computed on a background thread while the caller goes on with the bytes: loading a
// blob decodes chunk k while chunk k-1 is hashed, so the hash (2 GB/s, one core) no longer adds
// to the load time. Memory stays bounded: at most `max_pending` chunks are copied and waiting.
#pragma once
#include <condition_variable>
#include <deque>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

#include "sha256.hpp"

namespace strata::hub::detail {

class BackgroundSha256 {
 public:
  explicit BackgroundSha256(size_t max_pending = 3);
  ~BackgroundSha256();  // stops the thread; an unfinished digest is dropped
  BackgroundSha256(const BackgroundSha256&) = delete;
  BackgroundSha256& operator=(const BackgroundSha256&) = delete;

  // Copies `bytes` and queues them; waits while `max_pending` chunks are already queued.
  void update(std::string_view bytes);
  // Waits for every queued chunk to be hashed: 64 lowercase hex digits.
  std::string hex();

 private:
  void run();
  void stop();

  Sha256 sha_;
  const size_t max_pending_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::string> pending_;
  bool closing_ = false;
  std::thread thread_;  // last: starts after the members it uses exist
};

}  // namespace strata::hub::detail
