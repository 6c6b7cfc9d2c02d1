// The server's connection loop (src/serve/http_server.cpp) seen from a raw socket: pipelined
// requests are each answered, an interim "100 Continue" is sent before the body is read, answers
// larger than what it gathers arrive whole, a client that stalls or trickles mid-request gets 408
// after the I/O timeout, a body declared over the limit gets 413 at once, both counted in /metrics,
// an idle keep-alive connection does not hold up SIGTERM, and idle connections let the server sleep.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "support/process_threads.hpp"
#include "serve/serve_fixture.hpp"

namespace strata::testing {
namespace {

using ConnectionTest = ServeTest;
using Clock = std::chrono::steady_clock;

// A client connection that reads HTTP/1.1 answers by their Content-Length.
class RawConnection {
 public:
  explicit RawConnection(int port, int receive_timeout_s = 10) : fd_(::socket(AF_INET, SOCK_STREAM, 0)) {
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<uint16_t>(port));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    timeval tv{receive_timeout_s, 0};
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    connected_ = ::connect(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0;
  }
  ~RawConnection() { ::close(fd_); }
  RawConnection(const RawConnection&) = delete;
  RawConnection& operator=(const RawConnection&) = delete;

  bool connected() const { return connected_; }
  bool send(const std::string& bytes) {
    return ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(bytes.size());
  }
  // The next answer's head (status line and headers); empty if the connection ended or timed out.
  std::string head() {
    for (;;) {
      if (const auto end = buffered_.find("\r\n\r\n"); end != std::string::npos) {
        std::string head = buffered_.substr(0, end + 4);
        buffered_.erase(0, end + 4);
        return head;
      }
      if (!receive()) return {};
    }
  }
  // `size` bytes of body; fewer if the connection ended or timed out.
  std::string body(size_t size) {
    while (buffered_.size() < size && receive()) {
    }
    std::string body = buffered_.substr(0, size);
    buffered_.erase(0, body.size());
    return body;
  }
  // A whole answer: its head and the body its Content-Length announces.
  std::pair<std::string, std::string> answer() {
    std::string h = head();
    const auto at = h.find("Content-Length: ");
    const size_t length = at == std::string::npos ? 0 : std::stoul(h.substr(at + 16));
    return {h, body(length)};
  }
  // Whether the server closed the connection (a read gets end of file rather than data or a timeout).
  bool closed_by_server() {
    char byte;
    return buffered_.empty() && ::recv(fd_, &byte, 1, 0) == 0;
  }

 private:
  bool receive() {
    char chunk[65536];
    const ssize_t got = ::recv(fd_, chunk, sizeof chunk, 0);
    if (got <= 0) return false;
    buffered_.append(chunk, static_cast<size_t>(got));
    return true;
  }
  int fd_;
  bool connected_ = false;
  std::string buffered_;
};

std::string post(const std::string& path, const std::string& body, const std::string& extra_headers = "") {
  return "POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: " +
         std::to_string(body.size()) + "\r\n" + extra_headers + "\r\n" + body;
}

TEST_F(ConnectionTest, PipelinedRequestsAreEachAnsweredInOrder) {
  auto& server = start({"--model", "mlp"});
  RawConnection connection(server.port());
  ASSERT_TRUE(connection.connected());
  const Tensor a = randn({1, 16}), b = randn({3, 16});
  // Three requests in one write: httplib's own loop dropped what followed the first request.
  ASSERT_TRUE(connection.send("GET /v2/health/ready HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" +
                              post("/v2/models/mlp/infer", json_request("features", a)) +
                              post("/v2/models/mlp/infer", json_request("features", b))));
  const auto [ready_head, ready_body] = connection.answer();
  EXPECT_EQ(ready_head.rfind("HTTP/1.1 200", 0), 0u) << ready_head;
  EXPECT_EQ(json::parse(ready_body).at("ready"), true);
  for (const Tensor* x : {&a, &b}) {
    const auto [head, body] = connection.answer();
    ASSERT_EQ(head.rfind("HTTP/1.1 200", 0), 0u) << head << body;
    EXPECT_TRUE(allclose(output_tensor(json::parse(body).at("outputs").at(0)), predict("mlp", 1, *x), 1e-5, 1e-6));
  }
}

TEST_F(ConnectionTest, AnInterimContinueIsSentBeforeTheBodyIsRead) {
  auto& server = start({"--model", "mlp"});
  RawConnection connection(server.port(), 5);
  ASSERT_TRUE(connection.connected());
  const Tensor x = randn({2, 16});
  const std::string body = json_request("features", x);
  const std::string request = post("/v2/models/mlp/infer", body, "Expect: 100-continue\r\n");
  ASSERT_TRUE(connection.send(request.substr(0, request.size() - body.size())));  // the head alone
  // Gathered output left unsent would leave this client waiting for the Continue, and the server for the body.
  const std::string interim = connection.head();
  ASSERT_EQ(interim.rfind("HTTP/1.1 100 Continue", 0), 0u) << "no interim answer: '" << interim << "'";
  ASSERT_TRUE(connection.send(body));
  const auto [head, answer] = connection.answer();
  ASSERT_EQ(head.rfind("HTTP/1.1 200", 0), 0u) << head << answer;
  EXPECT_TRUE(allclose(output_tensor(json::parse(answer).at("outputs").at(0)), predict("mlp", 1, x), 1e-5, 1e-6));
}

TEST_F(ConnectionTest, LargeRequestsAndAnswersArriveWhole) {
  auto& server = start({"--model", "mlp"});
  auto client = server.client();
  // About 0.6 MB of request and 0.2 MB of answer: past the 16 KB read buffer and 64 KB gathered
  // for one send, so both go through the paths for large bodies; twice on one connection.
  for (int64_t rows : {3000, 2500}) {
    const Tensor x = randn({rows, 16});
    const auto res = post_infer(client, "mlp", json_request("features", x));
    ASSERT_TRUE(res && res->body.size() > (64u << 10)) << (res ? res->body.size() : 0);
    EXPECT_TRUE(allclose(infer_output(res), predict("mlp", 1, x), 1e-5, 1e-6)) << rows << " rows";
  }
}

TEST_F(ConnectionTest, AClientThatStallsMidRequestIsCutOffAfterTheIoTimeout) {
  auto& server = start({"--model", "mlp", "--io-timeout-s", "1"});
  RawConnection stalled(server.port(), 20);
  ASSERT_TRUE(stalled.connected());
  const std::string request = post("/v2/models/mlp/infer", json_request("features", randn({1, 16})));
  ASSERT_TRUE(stalled.send(request.substr(0, request.size() - 10)));  // ten bytes short
  const auto sent = Clock::now();
  const auto [head, body] = stalled.answer();  // httplib answered 400, or just closed
  EXPECT_EQ(head.rfind("HTTP/1.1 408", 0), 0u) << head;
  EXPECT_NE(json::parse(body).at("error").get<std::string>().find("read timeout of 1 s"), std::string::npos) << body;
  EXPECT_TRUE(stalled.closed_by_server());
  EXPECT_LT(Clock::now() - sent, std::chrono::seconds(15)) << "the stalled connection was not cut off";
  // The server serves others meanwhile and after.
  auto client = server.client();
  const Tensor x = randn({1, 16});
  EXPECT_TRUE(allclose(infer_output(post_infer(client, "mlp", json_request("features", x))), predict("mlp", 1, x),
                       1e-5, 1e-6));
}

// A byte every 0.3 s never let the socket's 1-s read timeout expire: the limit is now the whole
// request's, from its first byte.
TEST_F(ConnectionTest, AClientThatTricklesItsRequestGets408AfterTheIoTimeout) {
  auto& server = start({"--model", "mlp", "--io-timeout-s", "1"});
  RawConnection trickling(server.port(), 20);
  ASSERT_TRUE(trickling.connected());
  const std::string request = "GET /v2/health/live HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Padding: " + std::string(40, 'x') + "\r\n\r\n";
  const auto started = Clock::now();
  size_t sent = 0;
  for (; sent < request.size() && trickling.send(request.substr(sent, 1)); ++sent)
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_LT(sent, request.size()) << "the whole request trickled in without a refusal";
  const auto [head, body] = trickling.answer();
  EXPECT_EQ(head.rfind("HTTP/1.1 408", 0), 0u) << head << " after " << sent << " bytes";
  EXPECT_TRUE(trickling.closed_by_server());
  EXPECT_LT(Clock::now() - started, std::chrono::seconds(10));
  auto client = server.client();
  const std::string metrics = client.Get("/metrics")->body;
  EXPECT_NE(metrics.find("strata_http_refused_total{code=\"408\"} 1\n"), std::string::npos) << metrics;
}

// httplib read a body declared over --max-body-bytes to its end before refusing it: a client that
// declared 100 MB and sent 10 KB waited for the read timeout (30 s here) and got no answer.
TEST_F(ConnectionTest, ABodyDeclaredOverTheLimitGets413AtOnceAndTheConnectionCloses) {
  auto& server = start({"--model", "mlp", "--max-body-bytes", "4096"});
  for (int attempt = 1; attempt <= 2; ++attempt) {
    RawConnection connection(server.port(), 10);  // less than the 30-s read timeout
    ASSERT_TRUE(connection.connected());
    ASSERT_TRUE(connection.send("POST /v2/models/mlp/infer HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
                                "application/json\r\nContent-Length: 100000000\r\n\r\n" +
                                std::string(10'000, ' ')));
    const auto [head, body] = connection.answer();
    ASSERT_EQ(head.rfind("HTTP/1.1 413", 0), 0u) << "no answer before the client's 10-s wait: '" << head << "'";
    EXPECT_NE(head.find("Connection: close"), std::string::npos) << head;
    EXPECT_NE(json::parse(body).at("error").get<std::string>().find("larger than the server's limit"), std::string::npos);
    EXPECT_TRUE(connection.closed_by_server());
  }
  auto client = server.client();
  const std::string metrics = client.Get("/metrics")->body;
  EXPECT_NE(metrics.find("strata_http_refused_total{code=\"413\"} 2\n"), std::string::npos) << metrics;
  const Tensor x = randn({1, 16});
  EXPECT_TRUE(allclose(infer_output(post_infer(client, "mlp", json_request("features", x))), predict("mlp", 1, x),
                       1e-5, 1e-6));
}

TEST_F(ConnectionTest, SigtermClosesAnIdleKeepAliveConnectionAndExitsZero) {
  auto& server = start({"--model", "mlp"});
  RawConnection idle(server.port(), 20);
  ASSERT_TRUE(idle.connected());
  ASSERT_TRUE(idle.send("GET /v2/health/live HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"));
  ASSERT_EQ(idle.answer().first.rfind("HTTP/1.1 200", 0), 0u);
  // The connection stays open and idle (keep-alive, 5 s); the server must not wait that out.
  const auto signalled = Clock::now();
  server.signal(SIGTERM);
  EXPECT_TRUE(idle.closed_by_server());
  EXPECT_EQ(server.wait(), 0);
  EXPECT_LT(Clock::now() - signalled, std::chrono::seconds(4));
}

// An idle connection's thread waits on its socket and the server's stop event together, for as
// long as keep-alive allows: it does not wake up to look (httplib's loop polled every 10 ms, 100
// wake-ups a second a connection).
TEST_F(ConnectionTest, IdleKeepAliveConnectionsLetTheServerSleep) {
  auto& server = start({"--model", "mlp", "--poll-ms", "60000"});
  std::vector<std::unique_ptr<RawConnection>> idle;
  for (int i = 0; i < 8; ++i) {
    idle.push_back(std::make_unique<RawConnection>(server.port()));
    ASSERT_TRUE(idle.back()->send("GET /v2/health/live HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"));
    ASSERT_EQ(idle.back()->answer().first.rfind("HTTP/1.1 200", 0), 0u);
  }
  const int64_t before = process_voluntary_switches(server.pid());
  std::this_thread::sleep_for(std::chrono::seconds(1));
  const int64_t slept = process_voluntary_switches(server.pid()) - before;
  EXPECT_LT(slept, 100) << "the server's threads woke " << slept << " times in 1 s with 8 idle connections";
}

}  // namespace
}  // namespace strata::testing
