// DecodeBudget: how many bytes of JSON the server decodes at once, across all requests.
// Decoding a request's JSON holds about 20 times its size in memory (a DOM value of 16 bytes, and
// its array's growth, for each "0," of two bytes: a 60 MB body peaked at 1.2 GB), so without a
// bound, clients sending big JSON tensors on many connections at once could take the machine's
// memory: 64 connections of 64 MiB, 80 GB. With one, the JSON being decoded is at most the budget
// (a request bigger than it is decoded alone), and the rest wait their turn; binary tensor data,
// copied once, takes none. Small requests (a few KB) barely ever wait.
#pragma once
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <mutex>

namespace strata::serve {

class DecodeBudget {
 public:
  explicit DecodeBudget(size_t bytes) : limit_(bytes) {}

  // Holds `bytes` of the budget until destroyed, once they fit beside what others hold (or
  // nothing else is held); held() is false when they did not fit within the timeout.
  class Hold {
   public:
    Hold(DecodeBudget& budget, size_t bytes, std::chrono::milliseconds timeout);
    ~Hold();
    Hold(const Hold&) = delete;
    Hold& operator=(const Hold&) = delete;
    bool held() const { return held_; }

   private:
    DecodeBudget& budget_;
    size_t bytes_;
    bool held_;
  };

  size_t in_use() const;

 private:
  const size_t limit_;
  mutable std::mutex mu_;
  std::condition_variable freed_;
  size_t in_use_ = 0;
};

}  // namespace strata::serve
