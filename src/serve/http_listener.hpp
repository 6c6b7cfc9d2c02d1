// Binds an httplib server so that many clients can connect at once. httplib listens with a
// backlog of 5 (CPPHTTPLIB_LISTEN_BACKLOG, compiled into Debian's libcpp-httplib): 64 clients
// connecting together overflowed it, and the handshakes the kernel dropped came back to clients
// as read timeouts (bench_serve's "Read" failures, docs/serving.md). So the listening socket is
// noted when httplib makes it, and after the bind listen() is called on it again with the
// system's maximum backlog (Linux lets listen() change a listening socket's backlog).
// Include only where httplib's flags (HTTPLIB_CFLAGS) are set.
#pragma once
#include <sys/socket.h>

#include <string>

#include <httplib.h>

#include "strata/core/error.hpp"

namespace strata::serve {

class HttpListener {
 public:
  explicit HttpListener(httplib::Server& http) : http_(http) {
    http_.set_socket_options([this](socket_t sock) {
      httplib::default_socket_options(sock);
      socket_ = sock;  // the last made is the one bound: a failed attempt's is closed
    });
  }
  // The bound port; port 0 picks a free one. Throws strata::Error, `who` first, when it cannot bind.
  int bind(const std::string& host, int port, const char* who) {
    const int bound = port == 0 ? http_.bind_to_any_port(host) : (http_.bind_to_port(host, port) ? port : -1);
    STRATA_CHECK(bound > 0, who, ": cannot listen on ", host, ":", port, " (in use, or not an address of this machine)");
    if (socket_ != INVALID_SOCKET) ::listen(socket_, SOMAXCONN);
    return bound;
  }

 private:
  httplib::Server& http_;
  socket_t socket_ = INVALID_SOCKET;
};

}  // namespace strata::serve
