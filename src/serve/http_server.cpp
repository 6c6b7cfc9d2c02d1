#include "http_server.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "strata/core/error.hpp"

namespace strata::serve {
namespace {

using Clock = std::chrono::steady_clock;

// Writes are gathered up to this many bytes; a larger one goes out with them in the same sendmsg.
constexpr size_t kGatherBytes = 64 * 1024;
constexpr size_t kReadBufferBytes = 16 * 1024;

struct Endpoint {
  std::string ip;
  int port = 0;
};

// One end of a connected socket: `peer` for the client's, else this server's.
Endpoint endpoint_of(socket_t sock, bool peer) {
  sockaddr_storage address{};
  socklen_t length = sizeof address;
  auto* raw = reinterpret_cast<sockaddr*>(&address);
  if ((peer ? ::getpeername(sock, raw, &length) : ::getsockname(sock, raw, &length)) != 0) return {};
  char text[INET6_ADDRSTRLEN] = {};
  if (address.ss_family == AF_INET) {
    const auto* v4 = reinterpret_cast<const sockaddr_in*>(&address);
    ::inet_ntop(AF_INET, &v4->sin_addr, text, sizeof text);
    return {text, ntohs(v4->sin_port)};
  }
  if (address.ss_family == AF_INET6) {
    const auto* v6 = reinterpret_cast<const sockaddr_in6*>(&address);
    ::inet_ntop(AF_INET6, &v6->sin6_addr, text, sizeof text);
    return {text, ntohs(v6->sin6_port)};
  }
  return {};
}

// The socket's SO_RCVTIMEO or SO_SNDTIMEO as poll's timeout (httplib sets both on accepting):
// milliseconds, or -1 for none (0 there means no timeout, to poll it means none at all).
int socket_timeout_ms(socket_t sock, int option) {
  timeval tv{};
  socklen_t length = sizeof tv;
  if (::getsockopt(sock, SOL_SOCKET, option, &tv, &length) != 0) return 0;
  const int64_t ms = static_cast<int64_t>(tv.tv_sec) * 1000 + tv.tv_usec / 1000;
  return ms == 0 ? -1 : static_cast<int>(std::min<int64_t>(ms, INT32_MAX));
}

// Set on the connection's thread while a request is handled when its answer must end the
// connection: the answer said "Connection: close" (the body was left unread, say).
thread_local bool t_close_after_response = false;

// A connection's stream for all its requests: reads come from one buffer, writes are gathered
// until flush() (or until a read must wait for the client, who may be waiting for them: an
// interim "100 Continue"). Reads of a request stop at its deadline (start_request).
class ConnectionStream final : public httplib::Stream {
 public:
  explicit ConnectionStream(socket_t sock) : sock_(sock), in_(kReadBufferBytes) {}

  // Waits for the next request's first bytes. False when the connection stayed idle past `idle`,
  // `stop_event` became readable (the server stops) or polling failed; true also when the client
  // closed or the socket failed: the read that follows finds out.
  bool await_request(std::chrono::seconds idle, int stop_event) {
    if (in_begin_ < in_end_) return true;  // a pipelined request is here already
    const auto deadline = Clock::now() + idle;
    for (;;) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
      if (left.count() <= 0) return false;
      pollfd wanted[2] = {{sock_, POLLIN, 0}, {stop_event, POLLIN, 0}};
      const int ready = ::poll(wanted, 2, static_cast<int>(std::min<int64_t>(left.count(), INT32_MAX)));
      if (ready < 0 && errno == EINTR) continue;
      if (ready <= 0 || wanted[1].revents != 0) return false;
      return true;
    }
  }

  // Sends what was written; false if the connection failed now or before.
  bool flush() { return send_gathered(nullptr, 0); }

  // The request now being read must have arrived whole by `deadline`.
  void start_request(Clock::time_point deadline) {
    deadline_ = deadline;
    timed_out_ = false;
  }
  // Whether a read of this request found the deadline passed.
  bool timed_out() const { return timed_out_; }
  // Drops what was written and not sent (httplib's answer to a request cut short by the deadline).
  void discard_unsent() { out_.clear(); }

  bool is_readable() const override {
    if (in_begin_ < in_end_) return true;
    pollfd wanted{sock_, POLLIN, 0};
    return ::poll(&wanted, 1, socket_timeout_ms(sock_, SO_RCVTIMEO)) > 0;
  }

  bool is_writable() const override {
    if (failed_) return false;
    pollfd wanted{sock_, POLLOUT, 0};
    return ::poll(&wanted, 1, socket_timeout_ms(sock_, SO_SNDTIMEO)) > 0 &&
           (wanted.revents & (POLLERR | POLLHUP | POLLNVAL)) == 0;
  }

  ssize_t read(char* data, size_t size) override {
    if (in_begin_ == in_end_) {
      if (!flush()) return -1;
      if (size >= in_.size()) return receive(data, size);  // a large body goes straight to its place
      const ssize_t got = receive(in_.data(), in_.size());
      if (got <= 0) return got;
      in_begin_ = 0;
      in_end_ = static_cast<size_t>(got);
    }
    const size_t count = std::min(size, in_end_ - in_begin_);
    std::memcpy(data, in_.data() + in_begin_, count);
    in_begin_ += count;
    return static_cast<ssize_t>(count);
  }

  ssize_t write(const char* data, size_t size) override {
    if (failed_) return -1;
    if (out_.size() + size <= kGatherBytes) {
      out_.append(data, size);
    } else if (!send_gathered(data, size)) {
      return -1;
    }
    return static_cast<ssize_t>(size);
  }

  void get_remote_ip_and_port(std::string& ip, int& port) const override {
    if (!remote_) remote_ = endpoint_of(sock_, true);  // once a connection, not once a request
    ip = remote_->ip;
    port = remote_->port;
  }
  void get_local_ip_and_port(std::string& ip, int& port) const override {
    if (!local_) local_ = endpoint_of(sock_, false);
    ip = local_->ip;
    port = local_->port;
  }
  socket_t socket() const override { return sock_; }

 private:
  // recv, which waits at most until the request's deadline (-1 then, as on any failure).
  ssize_t receive(char* data, size_t size) {
    for (;;) {
      const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline_ - Clock::now()).count();
      pollfd wanted{sock_, POLLIN, 0};
      const int ready = left <= 0 ? 0 : ::poll(&wanted, 1, static_cast<int>(std::min<int64_t>(left, INT32_MAX)));
      if (ready < 0 && errno == EINTR) continue;
      if (ready == 0) timed_out_ = true;
      if (ready <= 0) return -1;
      break;
    }
    ssize_t got;
    do got = ::recv(sock_, data, size, 0);
    while (got < 0 && errno == EINTR);
    return got;
  }

  // One sendmsg of the gathered bytes and then `more`, repeated while the kernel takes a part;
  // each waits at most the socket's write timeout.
  bool send_gathered(const char* more, size_t more_size) {
    if (failed_) return false;
    iovec parts[2] = {{out_.data(), out_.size()}, {const_cast<char*>(more), more_size}};
    iovec* next = parts[0].iov_len > 0 ? parts : parts + 1;
    iovec* const end = parts[1].iov_len > 0 ? parts + 2 : parts + 1;
    while (next < end) {
      msghdr message{};
      message.msg_iov = next;
      message.msg_iovlen = static_cast<size_t>(end - next);
      const ssize_t sent = ::sendmsg(sock_, &message, MSG_NOSIGNAL);  // a gone client is an error, not SIGPIPE
      if (sent < 0 && errno == EINTR) continue;
      if (sent < 0) {
        failed_ = true;
        break;
      }
      for (size_t left = static_cast<size_t>(sent); left > 0 && next < end;) {
        const size_t taken = std::min(left, next->iov_len);
        next->iov_base = static_cast<char*>(next->iov_base) + taken;
        next->iov_len -= taken;
        left -= taken;
        if (next->iov_len == 0) ++next;
      }
    }
    out_.clear();
    return !failed_;
  }

  socket_t sock_;
  std::vector<char> in_;
  size_t in_begin_ = 0, in_end_ = 0;
  std::string out_;
  bool failed_ = false;
  Clock::time_point deadline_ = Clock::time_point::max();
  bool timed_out_ = false;
  mutable std::optional<Endpoint> remote_, local_;
};

}  // namespace

HttpServer& HttpServer::set_keep_alive_max_count(size_t requests) {
  keep_alive_requests_ = std::max<size_t>(requests, 1);
  httplib::Server::set_keep_alive_max_count(keep_alive_requests_);
  return *this;
}

HttpServer& HttpServer::set_keep_alive_timeout(std::chrono::seconds idle) {
  keep_alive_idle_ = idle;
  httplib::Server::set_keep_alive_timeout(idle.count());
  return *this;
}

HttpServer& HttpServer::set_pre_routing_handler(HandlerWithResponse handler) {
  pre_routing_ = std::move(handler);
  return *this;
}

HttpServer::HttpServer() : stop_event_(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {
  STRATA_CHECK(stop_event_ >= 0, "serve: cannot make the server's stop event (eventfd: ", std::strerror(errno), ")");
  // Before routing, so before httplib reads the body: one declared over the limit is refused
  // unread, and the connection, holding the rest of it, is closed after the answer.
  httplib::Server::set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
    if (req.has_header("Content-Length") &&
        req.get_header_value<uint64_t>("Content-Length") > payload_max_length_) {
      res.status = 413;  // the error handler, if any, words it
      res.set_header("Connection", "close");
      return HandlerResponse::Handled;
    }
    return pre_routing_ ? pre_routing_(req, res) : HandlerResponse::Unhandled;
  });
  // Called for every answer httplib writes.
  httplib::Server::set_logger([this](const httplib::Request&, const httplib::Response& res) {
    if (res.status == 413) ++too_large_;
    if (res.get_header_value("Connection") == "close") t_close_after_response = true;
  });
}

HttpServer::~HttpServer() { ::close(stop_event_); }

void HttpServer::stop() {
  stopping_ = true;
  const uint64_t one = 1;
  [[maybe_unused]] const ssize_t written = ::write(stop_event_, &one, sizeof one);  // only fails if already set
  httplib::Server::stop();
}

bool HttpServer::serve_connection(socket_t sock) {
  ConnectionStream stream(sock);
  bool ok = false;
  for (size_t left = keep_alive_requests_;
       left > 0 && !stopping_ && stream.await_request(keep_alive_idle_, stop_event_); --left) {
    bool client_closes = false;  // the request said "Connection: close"
    stream.start_request(Clock::now() + std::chrono::seconds(read_timeout_sec_) +
                         std::chrono::microseconds(read_timeout_usec_));
    t_close_after_response = false;
    ok = process_request(stream, left == 1, client_closes, nullptr);
    if (stream.timed_out()) {
      ++too_slow_;
      stream.discard_unsent();
      const std::string body =
          nlohmann::json{{"error", "the request was not received in full within the server's read timeout of " +
                                       std::to_string(read_timeout_sec_) + " s"}}
              .dump();
      const std::string answer = "HTTP/1.1 408 Request Timeout\r\nContent-Type: application/json\r\nContent-Length: " +
                                 std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body;
      stream.write(answer.data(), answer.size());
      stream.flush();
      ok = false;
      break;
    }
    ok = stream.flush() && ok;
    if (!ok || client_closes || t_close_after_response) break;
  }
  ::shutdown(sock, SHUT_RDWR);
  ::close(sock);
  return ok;
}

}  // namespace strata::serve
