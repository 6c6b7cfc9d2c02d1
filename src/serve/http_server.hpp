// httplib's server with its own connection loop: one read buffer per connection and each answer
// sent in one system call.
//
// httplib 0.11.4 (Debian's) spends 11 system calls on a small request: a poll before each read
// and two before each write (is the socket writable, is it still alive), getpeername and
// getsockname, and separate sends for the headers and the body, which the client may read in two
// wake-ups. On a 2-vCPU machine that was about a sixth of the 1-client overhead of an inference
// (docs/serving.md, "One send an answer"). This server keeps httplib's parsing, routing and
// limits (`process_request`) and replaces only the socket loop around it: a request takes a poll
// and a recv, and its answer one sendmsg. The socket's read and write timeouts are the ones httplib
// sets on every accepted socket (SO_RCVTIMEO, SO_SNDTIMEO), so a stalled client still times out.
// A connection's bytes past one request stay for the next, so pipelined requests are answered.
// Include only where httplib's flags (HTTPLIB_CFLAGS) are set.
#pragma once
#include <atomic>
#include <chrono>
#include <cstddef>

#include <httplib.h>

namespace strata::serve {

class HttpServer : public httplib::Server {
 public:
  // These hide httplib's setters of the same names: this server's loop reads the values.
  HttpServer& set_keep_alive_max_count(size_t requests);
  HttpServer& set_keep_alive_timeout(std::chrono::seconds idle);
  HttpServer();
  ~HttpServer() override;
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Hides httplib's stop(), which its connection loop noticed between requests: a connection ends
  // after the request it is serving, and an idle one at once.
  void stop();

  // Serves one connected socket's requests until the client leaves, stays idle past the keep-alive
  // timeout or has sent as many requests as keep-alive allows, or the server stops; then closes it.
  // False if the last request failed. Public for fuzz/http_connection.cpp.
  bool serve_connection(socket_t sock);

 private:
  // httplib calls this (virtual) on a pool thread for each accepted connection.
  bool process_and_close_socket(socket_t sock) override { return serve_connection(sock); }

  size_t keep_alive_requests_ = CPPHTTPLIB_KEEPALIVE_MAX_COUNT;
  std::chrono::seconds keep_alive_idle_{CPPHTTPLIB_KEEPALIVE_TIMEOUT_SECOND};
  std::atomic<bool> stopping_{false};
  // Readable once stop() is called: idle connections wait on it beside their socket, so they
  // neither poll in slices nor outlast a stop.
  int stop_event_ = -1;
};

}  // namespace strata::serve
