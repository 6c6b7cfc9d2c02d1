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
//
// Two refusals httplib does not make well are made here, and counted for /metrics: a body whose
// Content-Length is over the payload limit gets 413 at once and the connection is closed (httplib
// read, and dropped, the whole declared body first, so a client that declared more than it sent
// waited for the read timeout and got nothing); a request not received in full within the read
// timeout, counted from its first byte (a client trickling a byte at a time once never timed out),
// gets 408 and the connection is closed.
// Include only where httplib's flags (HTTPLIB_CFLAGS) are set.
#pragma once
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>

#include <httplib.h>

namespace strata::serve {

class HttpServer : public httplib::Server {
 public:
  // These hide httplib's setters of the same names: this server's loop reads the values, and the
  // pre-routing handler runs after this server's own check of the declared body size.
  HttpServer& set_keep_alive_max_count(size_t requests);
  HttpServer& set_keep_alive_timeout(std::chrono::seconds idle);
  HttpServer& set_pre_routing_handler(HandlerWithResponse handler);

  // Requests refused with 413 (a body over the limit, declared or received) and with 408 (not
  // received within the read timeout) since the server started.
  uint64_t refused_too_large() const { return too_large_; }
  uint64_t refused_too_slow() const { return too_slow_; }
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
  std::atomic<uint64_t> too_large_{0}, too_slow_{0};
  HandlerWithResponse pre_routing_;
  // Readable once stop() is called: idle connections wait on it beside their socket, so they
  // neither poll in slices nor outlast a stop.
  int stop_event_ = -1;
};

}  // namespace strata::serve
