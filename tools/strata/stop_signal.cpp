#include "stop_signal.hpp"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <thread>

#include "strata/core/error.hpp"

namespace strata::cli {
namespace {

// The signal handlers write a byte here; a thread reading it stops the server. A handler, not a
// blocked mask and sigwait: threads started before main (libstrata's load-time set-up runs on
// OpenMP's threads) would not have the signals blocked and would take their default action.
int g_stop_pipe[2] = {-1, -1};

void on_stop_signal(int) {
  const char byte = 1;
  [[maybe_unused]] auto written = ::write(g_stop_pipe[1], &byte, 1);
}

}  // namespace

StopSignal::StopSignal() {
  STRATA_CHECK(::pipe(g_stop_pipe) == 0, "cannot make a pipe for the stop signals");
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  ::sigaction(SIGTERM, &action, nullptr);
  ::sigaction(SIGINT, &action, nullptr);
}

void StopSignal::serve_until(const std::function<void()>& serve, const std::function<void()>& stop) {
  std::thread signal_waiter([&] {
    char byte = 0;
    while (::read(g_stop_pipe[0], &byte, 1) < 0 && errno == EINTR) {
    }
    stop();
  });
  try {
    serve();
  } catch (...) {
    // serve() failed (no thread for its connections, say): the waiter must end before the error goes on.
    on_stop_signal(0);
    signal_waiter.join();
    throw;
  }
  on_stop_signal(0);  // wakes the waiter if serve() ended without a signal
  signal_waiter.join();
}

}  // namespace strata::cli
