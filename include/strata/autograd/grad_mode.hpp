// Grad mode: whether ops record history. NoGradGuard turns recording off in its scope
// (inference, optimizer updates); the setting is per thread.
#pragma once

namespace strata::autograd {

bool grad_enabled();
void set_grad_enabled(bool on);

class NoGradGuard {
 public:
  NoGradGuard() : prev_(grad_enabled()) { set_grad_enabled(false); }
  ~NoGradGuard() { set_grad_enabled(prev_); }
  NoGradGuard(const NoGradGuard&) = delete;
  NoGradGuard& operator=(const NoGradGuard&) = delete;

 private:
  bool prev_;
};

}  // namespace strata::autograd

namespace strata {
using autograd::NoGradGuard;
}
