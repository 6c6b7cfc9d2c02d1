// SIGTERM and SIGINT for the long-running commands (`strata serve`, `strata ui`): once a
// StopSignal exists they no longer kill the process; serve_until runs the server and calls its
// stop() from a thread of its own when either arrives (also one that came before).
#pragma once
#include <functional>

namespace strata::cli {

class StopSignal {
 public:
  StopSignal();  // installs the handlers: make it before telling anyone the server is up
  // Runs `serve` (blocking until stopped); calls `stop` from another thread on SIGTERM or SIGINT.
  void serve_until(const std::function<void()>& serve, const std::function<void()>& stop);
};

}  // namespace strata::cli
