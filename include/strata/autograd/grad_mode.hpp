// Grad mode: whether ops record history. NoGradGuard turns recording off in its scope
// (inference, optimizer updates); GradModeGuard sets it either way (the backward engine turns it
// on for create_graph). The setting is per thread.
#pragma once

namespace strata::autograd {

bool grad_enabled();
void set_grad_enabled(bool on);

class GradModeGuard {
 public:
  explicit GradModeGuard(bool on) : prev_(grad_enabled()) { set_grad_enabled(on); }
  ~GradModeGuard() { set_grad_enabled(prev_); }
  GradModeGuard(const GradModeGuard&) = delete;
  GradModeGuard& operator=(const GradModeGuard&) = delete;

 private:
  bool prev_;
};

class NoGradGuard : public GradModeGuard {
 public:
  NoGradGuard() : GradModeGuard(false) {}
};

}  // namespace strata::autograd

namespace strata {
using autograd::GradModeGuard;
using autograd::NoGradGuard;
}
