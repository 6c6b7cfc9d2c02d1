#include "strata/serve/decode_budget.hpp"

#include <algorithm>

namespace strata::serve {

DecodeBudget::Hold::Hold(DecodeBudget& budget, size_t bytes, std::chrono::milliseconds timeout)
    : budget_(budget), bytes_(bytes) {
  std::unique_lock lock(budget_.mu_);
  held_ = budget_.freed_.wait_for(lock, timeout, [&] {
    return budget_.in_use_ == 0 || bytes_ <= budget_.limit_ - std::min(budget_.in_use_, budget_.limit_);
  });
  if (held_) budget_.in_use_ += bytes_;
}

DecodeBudget::Hold::~Hold() {
  if (!held_) return;
  {
    std::lock_guard lock(budget_.mu_);
    budget_.in_use_ -= bytes_;
  }
  budget_.freed_.notify_all();
}

size_t DecodeBudget::in_use() const {
  std::lock_guard lock(mu_);
  return in_use_;
}

}  // namespace strata::serve
