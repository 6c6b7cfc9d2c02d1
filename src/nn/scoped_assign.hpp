// Layer::operator() passes only tensors, so layers with further call arguments (attention
// masks) keep them in a member for the duration of one call; this puts the old value back.
#pragma once
#include <utility>

namespace strata::nn {

template <class T>
class ScopedAssign {
 public:
  ScopedAssign(T& slot, T value) : slot_(slot), saved_(std::exchange(slot, std::move(value))) {}
  ~ScopedAssign() { slot_ = std::move(saved_); }
  ScopedAssign(const ScopedAssign&) = delete;
  ScopedAssign& operator=(const ScopedAssign&) = delete;

 private:
  T& slot_;
  T saved_;
};

}  // namespace strata::nn
