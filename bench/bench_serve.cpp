// bench_serve: `strata serve`'s throughput and latency for the Fashion-MNIST MLP (784-800-800-10,
// random weights) with 1, 16 and 64 concurrent clients, without dynamic batching
// (--max-batch-size 1) and with it, against the in-process batch-1 latency (the floor).
// Each client keeps one connection and sends batch-1 requests with binary input and output
// (the binary tensor data extension: JSON text would measure number formatting, not serving).
//
//   bench_serve [--seconds S]     (default 3 per row)
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "serve/serve_process.hpp"
#include "strata/autograd/grad_mode.hpp"
#include "strata/core/factory.hpp"
#include "strata/core/intra_op_threads.hpp"
#include "strata/hub/hub.hpp"
#include "strata/nn/nn.hpp"
#include "strata/ops/elementwise.hpp"
#include "strata/train/hub_models.hpp"

using namespace strata;
using Clock = std::chrono::steady_clock;

namespace {

struct Row {
  double requests_per_s = 0, p50_us = 0, p99_us = 0;
};

double percentile(std::vector<double>& values, double q) {
  if (values.empty()) return 0;
  const size_t at = std::min(values.size() - 1, static_cast<size_t>(q * values.size()));
  std::nth_element(values.begin(), values.begin() + at, values.end());
  return values[at];
}

std::string binary_request(const Tensor& x, size_t& header_length) {
  const std::string header =
      R"({"inputs":[{"name":"image","datatype":"FP32","shape":[1,784],"parameters":{"binary_data_size":3136}}],)"
      R"("outputs":[{"name":"output_0","parameters":{"binary_data":true}}]})";
  header_length = header.size();
  return header + std::string(static_cast<const char*>(x.raw_data()), x.nbytes());
}

Row load(const testing::ServeProcess& server, int clients, double seconds) {
  size_t header_length = 0;
  const std::string body = binary_request(randn({1, 784}), header_length);
  const httplib::Headers headers = {{"Inference-Header-Content-Length", std::to_string(header_length)}};
  std::vector<std::vector<double>> latencies(clients);
  std::atomic<int64_t> failures{0};
  std::mutex first_failure_mutex;
  std::string first_failure;  // why the first failed request failed
  const auto end = Clock::now() + std::chrono::duration<double>(seconds);
  std::vector<std::thread> threads;
  for (int c = 0; c < clients; ++c)
    threads.emplace_back([&, c] {
      auto client = server.client();
      client.set_keep_alive(true);
      while (Clock::now() < end) {
        const auto start = Clock::now();
        auto res = client.Post("/v2/models/mlp/infer", headers, body, "application/octet-stream");
        if (!res || res->status != 200) {
          if (failures++ == 0) {
            std::lock_guard lock(first_failure_mutex);
            first_failure = res ? "HTTP " + std::to_string(res->status) + " " + res->body : httplib::to_string(res.error());
          }
        }
        latencies[c].push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count());
      }
    });
  for (auto& t : threads) t.join();
  std::vector<double> all;
  for (auto& l : latencies) all.insert(all.end(), l.begin(), l.end());
  if (failures > 0)
    std::fprintf(stderr, "bench_serve: %lld failed requests (the first: %s)\n", static_cast<long long>(failures.load()),
                 first_failure.c_str());
  return {all.size() / seconds, percentile(all, 0.5), percentile(all, 0.99)};
}

double in_process_p50_us(nn::Model& model) {
  const Tensor x = randn({1, 784});
  NoGradGuard no_grad;
  std::vector<double> times;
  for (int i = 0; i < 2000; ++i) {
    const auto start = Clock::now();
    model.run({x});
    times.push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count());
  }
  return percentile(times, 0.5);
}

}  // namespace

int main(int argc, char** argv) {
  double seconds = 3;
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], "--seconds") == 0) seconds = std::atof(argv[++i]);
  const auto dir = std::filesystem::temp_directory_path() / ("strata_bench_serve_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string hub_path = (dir / "hub.db").string();
  auto x = nn::Input({-1, 784}, "image");
  auto h = nn::Dense(800, "relu")(nn::Dense(800, "relu")(x));
  nn::Model mlp(x, nn::Dense(10)(h), "mlp");
  {
    auto hub = hub::Hub::open(hub_path);
    train::save_model(hub, "mlp", mlp);
  }
  mlp.eval();
  std::printf("MLP 784-800-800-10, batch-1 requests, binary tensors, %.0f s per row\n", seconds);
  std::printf("in-process batch-1 latency (the floor): p50 %.0f us", in_process_p50_us(mlp));
  {
    IntraOpThreadLimit one(1);  // as the server runs a lone batch-1 request: on the HTTP thread
    std::printf(", on one thread %.0f us\n\n", in_process_p50_us(mlp));
  }
  std::printf("%-34s %8s %12s %10s %10s\n", "server", "clients", "requests/s", "p50 us", "p99 us");
  const std::vector<std::pair<std::string, std::vector<std::string>>> configs = {
      {"no batching (--max-batch-size 1)", {"--max-batch-size", "1"}},
      {"dynamic batching (64, 0 us delay)", {"--max-batch-size", "64"}},
  };
  for (const auto& [label, flags] : configs) {
    std::vector<std::string> args = {"--model", "mlp", "--http-threads", "80"};
    args.insert(args.end(), flags.begin(), flags.end());
    testing::ServeProcess server(hub_path, args);
    load(server, 4, 0.5);  // warm up: connections, the allocator's caches, oneDNN's primitives
    for (int clients : {1, 16, 64}) {
      const Row row = load(server, clients, seconds);
      std::printf("%-34s %8d %12.0f %10.0f %10.0f\n", label.c_str(), clients, row.requests_per_s, row.p50_us, row.p99_us);
      std::fflush(stdout);
    }
  }
  std::filesystem::remove_all(dir);
  return 0;
}
