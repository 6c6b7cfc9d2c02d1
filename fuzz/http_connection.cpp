// One client connection's bytes as `strata serve` and `strata ui` read them: the input is
// written into one end of a socket pair and that end closed for writing; the server's connection
// loop (serve::HttpServer::serve_connection: its read buffer, gathered writes, keep-alive,
// httplib's request parsing, chunked bodies, "Expect: 100-continue") serves the other end until
// the input runs out. Routes: GET /ready, POST /echo (answers the body), GET /items/<digits>.
// Whatever the server sends back must be whole HTTP/1.1 answers one after another: a status line
// "HTTP/1.1 NNN ...", headers, a blank line, then exactly the bytes its Content-Length says (none
// for an interim 1xx), and nothing after the last. Gathered writes that lost, repeated or
// reordered bytes would break that framing. Else the target aborts.
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <thread>

#include "serve/http_server.hpp"

namespace {

// Whether bytes[at...] is a sequence of whole HTTP/1.1 answers framed by their Content-Length.
// An answer to HEAD has the length of the body it leaves out, and which requests were HEAD is
// not known here, so each answer may also be read as bodiless (at most 8 answers a connection:
// the server's keep-alive count, so at most 2^8 readings).
bool whole_answers(const std::string& bytes, size_t at = 0) {
  if (at >= bytes.size()) return at == bytes.size();  // past the end: a body longer than what came
  if (bytes.compare(at, 9, "HTTP/1.1 ") != 0 || at + 12 > bytes.size()) return false;
  const size_t head_end = bytes.find("\r\n\r\n", at);
  if (head_end == std::string::npos) return false;
  const std::string head = bytes.substr(at, head_end - at);
  const size_t field = head.find("\r\nContent-Length: ");
  if (field == std::string::npos) return bytes[at + 9] == '1' && whole_answers(bytes, head_end + 4);  // interim
  const size_t digits = field + 18, line_end = head.find("\r\n", digits);
  const std::string number = head.substr(digits, line_end == std::string::npos ? std::string::npos : line_end - digits);
  if (number.empty() || number.size() > 12 || number.find_first_not_of("0123456789") != std::string::npos) return false;
  const size_t body = std::stoull(number);
  return whole_answers(bytes, head_end + 4 + body) || (body > 0 && whole_answers(bytes, head_end + 4));
}

strata::serve::HttpServer& server() {
  static strata::serve::HttpServer* http = [] {
    auto* s = new strata::serve::HttpServer;
    s->set_payload_max_length(16 << 10);
    s->set_keep_alive_max_count(8);
    s->Get("/ready", [](const httplib::Request&, httplib::Response& res) { res.set_content("ok", "text/plain"); });
    s->Post("/echo",
            [](const httplib::Request& req, httplib::Response& res) { res.set_content(req.body, "text/plain"); });
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
  if (!whole_answers(answers)) std::abort();
  return 0;
}
