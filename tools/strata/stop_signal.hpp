// SIGTERM and SIGINT for the long-running commands (`strata serve`, `strata ui`): the server's
// stop() runs on a thread of its own when either arrives, and serve() returns.
#pragma once
#include <functional>

namespace strata::cli {

// Runs `serve` (blocking until stopped); calls `stop` from another thread on SIGTERM or SIGINT.
void serve_until_signal(const std::function<void()>& serve, const std::function<void()>& stop);

}  // namespace strata::cli
