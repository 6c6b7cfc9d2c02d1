// One client connection's bytes as `strata serve` and `strata ui` read them: the input is
// written into one end of a socket pair and that end closed for writing; the server's connection
// loop (serve::HttpServer::serve_connection: its read buffer, gathered writes, keep-alive,
// httplib's request parsing, chunked bodies, "Expect: 100-continue") serves the other end until
// the input runs out. Routes: GET /ready, POST /echo (answers the body), GET /items/<digits>.
// Whatever the server sends back must be HTTP/1.1 answers: it starts with "HTTP/1.1 " when it is
// not empty. Else the target aborts.
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <thread>

#include "serve/http_server.hpp"

namespace {

strata::serve::HttpServer& server() {
  static strata::serve::HttpServer* http = [] {
    auto* s = new strata::serve::HttpServer;
    s->set_payload_max_length(16 << 10);
    s->set_keep_alive_max_count(8);
    s->Get("/ready", [](const httplib::Request&, httplib::Response& res) { res.set_content("ok", "text/plain"); });
    s->Post("/echo", [](const httplib::Request& req, httplib::Response& res) { res.set_content(req.body, "text/plain"); });
    s->Get(R"(/items/(\d+))", [](const httplib::Request& req, httplib::Response& res) {
      res.set_content(req.matches[1].str(), "text/plain");
    });
    return s;
  }();
  return *http;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  int ends[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM, 0, ends) != 0) std::abort();
  // The client writes and reads on threads of its own, so that neither side's buffer can fill
  // and stall the other; the server runs here.
  std::thread client_writes([&] {
    for (size_t sent = 0; sent < size;) {
      const ssize_t n = ::send(ends[1], data + sent, size - sent, MSG_NOSIGNAL);
      if (n <= 0) break;  // the server closed early, as it may after a bad request
      sent += static_cast<size_t>(n);
    }
    ::shutdown(ends[1], SHUT_WR);
  });
  std::string answers;
  std::thread client_reads([&] {
    char chunk[4096];
    for (ssize_t n; (n = ::recv(ends[1], chunk, sizeof chunk, 0)) > 0;) answers.append(chunk, static_cast<size_t>(n));
  });
  server().serve_connection(ends[0]);  // closes ends[0]
  client_writes.join();
  client_reads.join();
  ::close(ends[1]);
  if (!answers.empty() && answers.rfind("HTTP/1.1 ", 0) != 0) std::abort();
  return 0;
}
