#include "background_sha256.hpp"

namespace strata::hub::detail {

BackgroundSha256::BackgroundSha256(size_t max_pending)
    : max_pending_(max_pending), thread_([this] { run(); }) {}

BackgroundSha256::~BackgroundSha256() { stop(); }

void BackgroundSha256::update(std::string_view bytes) {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return pending_.size() < max_pending_; });
  pending_.emplace_back(bytes);
  changed_.notify_all();
}

std::string BackgroundSha256::hex() {
  stop();
  return sha_.hex();
}

void BackgroundSha256::stop() {
  {
    std::lock_guard lock(mutex_);
    closing_ = true;
  }
  changed_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void BackgroundSha256::run() {
  std::unique_lock lock(mutex_);
  while (true) {
    changed_.wait(lock, [&] { return closing_ || !pending_.empty(); });
    if (pending_.empty()) return;  // closing, and everything queued is hashed
    std::string chunk = std::move(pending_.front());
    pending_.pop_front();
    changed_.notify_all();
    lock.unlock();
    sha_.update(chunk.data(), chunk.size());
    lock.lock();
  }
}

}  // namespace strata::hub::detail
