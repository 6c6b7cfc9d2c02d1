// Binds an httplib server so that many clients can connect at once. httplib listens with a
// backlog of 5 (CPPHTTPLIB_LISTEN_BACKLOG, compiled into Debian's libcpp-httplib): 64 clients
// connecting together overflowed it, and the handshakes the kernel dropped came back to clients
// as read timeouts (bench_serve's "Read" failures, docs/serving.md). So the listening socket is
// noted when httplib makes it, and after the bind listen() is called on it again with the
// system's maximum backlog (Linux lets listen() change a listening socket's backlog).
// The socket is not shared with other processes (no SO_REUSEPORT): a port in use is an error.
// serve() and stop() wrap httplib's: its stop() does nothing until listen_after_bind() has begun,
// so a SIGTERM arriving just after "listening on" was printed left the server running for good.
// Include only where httplib's flags (HTTPLIB_CFLAGS) are set.
#pragma once
#include <sys/socket.h>

#include <atomic>
#include <string>
#include <thread>

#include "http_server.hpp"

#include "strata/core/error.hpp"

namespace strata::serve {

class HttpListener {
 public:
  explicit HttpListener(HttpServer& http) : http_(http) {
    http_.set_socket_options([this](socket_t sock) {
      // SO_REUSEADDR only: a restarted server binds at once past the old one's TIME_WAIT sockets.
      // httplib's default also sets SO_REUSEPORT, which let a second server bind a port in use
      // and take half its connections, serving whatever model it had (tests/serve/test_lifecycle.cpp).
      const int yes = 1;
      ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
      socket_ = sock;  // the last made is the one bound: a failed attempt's is closed
    });
  }
  // The bound port; port 0 picks a free one. Throws strata::Error, `who` first, when it cannot bind.
  int bind(const std::string& host, int port, const char* who) {
    // httplib keeps the port in 16 bits: 99999 would bind 34463 while the server says 99999.
    STRATA_CHECK(port >= 0 && port <= 65535, who, ": the port should be from 0 to 65535, got ", port);
    const int bound = port == 0 ? http_.bind_to_any_port(host) : (http_.bind_to_port(host, port) ? port : -1);
    STRATA_CHECK(bound > 0, who, ": cannot listen on ", host, ":", port, " (in use, or not an address of this machine)");
    if (socket_ != INVALID_SOCKET) ::listen(socket_, SOMAXCONN);
    return bound;
  }

  // Serves until stop(); at once returns if stop() came first.
  void serve() {
    serve_called_ = true;
    try {
      if (!stop_requested_) http_.listen_after_bind();
    } catch (...) {  // (no thread for its connections): a stop() waiting for it must see the end
      serve_returned_ = true;
      throw;
    }
    serve_returned_ = true;
  }
  // Safe from any thread, before, during or after serve().
  void stop() {
    stop_requested_ = true;
    if (!serve_called_) return;  // serve() will see the request
    // serve() was called and did not see the request: wait until httplib listens, then stop it.
    while (!http_.is_running() && !serve_returned_) std::this_thread::yield();
    http_.stop();
  }

 private:
  HttpServer& http_;
  socket_t socket_ = INVALID_SOCKET;
  std::atomic<bool> serve_called_{false}, stop_requested_{false}, serve_returned_{false};
};

}  // namespace strata::serve
