// bench_serve: `strata serve`'s throughput and latency for the Fashion-MNIST MLP (784-800-800-10,
// random weights), the CNN `make run` trains (random weights) or one 784-10 dense layer (`linear`:
// a model of a few microseconds, so that what is left is the server's own cost) with 1, 16 and 64
// concurrent clients, without dynamic batching
// (--max-batch-size 1) and with it, against the in-process batch-1 latency (the floor; also
// timed with a 60 us sleep before each run, the part of the overhead no server removes) and HTTP
// without inference (GET /v2/health/ready from the same clients, 1 and 64 of them), and against
// the model's own gain from batching in process (rows/s at batch 64 over batch 1). For each
// inference row the server's own statistics (GET /v2/models/NAME/stats) give the rows its runs
// had on average and a run's mean time: what dynamic batching made of the load.
// Each client keeps one connection and sends batch-1 requests with binary input and output
// (the binary tensor data extension: JSON text would measure number formatting, not serving).
//
//   bench_serve [--model mlp|cnn|linear] [--seconds S] [--client wrk] [--client-cpus LIST] [--cpu-wakeup-latency-us N]
//               [--server-arg ARG]...
//     (defaults: the MLP, 3 s per row, httplib client threads in this process, CPUs free to
//     sleep; with N, the bench and every server it starts hold that PM QoS request: it is
//     system-wide, so the floor, the clients and the servers all run under it)
//   --client-cpus LIST (with --client wrk): wrk runs on those CPUs (taskset's list, "8-15"), one
//     thread per CPU up to one per client, so that clients do not share the server's cores as
//     they do not when they are other machines. The floor and the servers run where the bench
//     runs: start it under `taskset -c SERVER_CPUS`.
//   --server-arg ARG: one more argument for every `strata serve` started (repeat for several:
//     `--server-arg --workers --server-arg 2`).
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <functional>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "../examples/fashion_mnist_cnn_net.hpp"
#include "hold_cpu_wakeup_latency.hpp"
#include "serve/serve_process.hpp"
#include "strata/autograd/grad_mode.hpp"
#include "strata/core/factory.hpp"
#include "strata/hub/hub.hpp"
#include "strata/lifecycle/hub_models.hpp"
#include "strata/nn/nn.hpp"
#include "strata/ops/elementwise.hpp"

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

// The served model: TensorLayer's MLP, the CNN `make run` trains, or one dense layer, each on one
// 28x28 image.
struct Served {
  std::string name;
  std::vector<int64_t> input_shape;  // with the batch axis, 1
  nn::Model model;
};

Served make_served(const std::string& which) {
  if (which == "cnn") return {"fashion_mnist_cnn", {1, 28, 28, 1}, fashion_mnist_cnn_static()};
  auto x = nn::Input({-1, 784}, "image");
  if (which == "linear") return {"linear", {1, 784}, nn::Model(x, nn::Dense(10)(x), "linear")};
  auto h = nn::Dense(800, "relu")(nn::Dense(800, "relu")(x));
  return {"mlp", {1, 784}, nn::Model(x, nn::Dense(10)(h), "mlp")};
}

std::string binary_request(const Tensor& x, size_t& header_length) {
  std::string shape;
  for (int64_t d : x.shape()) shape += (shape.empty() ? "" : ",") + std::to_string(d);
  const std::string header =
      R"({"inputs":[{"name":"image","datatype":"FP32","shape":[)" + shape +
      R"(],"parameters":{"binary_data_size":)" + std::to_string(x.nbytes()) + "}}]," +
      R"("outputs":[{"name":"output_0","parameters":{"binary_data":true}}]})";
  header_length = header.size();
  return header + std::string(static_cast<const char*>(x.raw_data()), x.nbytes());
}

// `clients` threads, each with one keep-alive connection, sending `send`'s request in a loop.
Row load(const testing::ServeProcess& server, int clients, double seconds,
         const std::function<httplib::Result(httplib::Client&)>& send) {
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
        auto res = send(client);
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

// Batch-1 inference requests of `served` with a binary input and output.
Row load_infer(const testing::ServeProcess& server, const Served& served, int clients, double seconds) {
  size_t header_length = 0;
  const std::string body = binary_request(randn(served.input_shape), header_length);
  const std::string path = "/v2/models/" + served.name + "/infer";
  const httplib::Headers headers = {{"Inference-Header-Content-Length", std::to_string(header_length)}};
  return load(server, clients, seconds,
              [&](httplib::Client& client) { return client.Post(path, headers, body, "application/octet-stream"); });
}

// The server's count of the rows and runs of a model, and the runs' time, so far.
struct Runs {
  uint64_t rows = 0, runs = 0, run_ns = 0;
};

Runs server_runs(const testing::ServeProcess& server, const std::string& model_name) {
  auto client = server.client();
  auto res = client.Get("/v2/models/" + model_name + "/stats");
  if (!res || res->status != 200) throw std::runtime_error("bench_serve: no statistics from the server");
  const auto stats = nlohmann::json::parse(res->body).at("model_stats").at(0);
  Runs runs{stats.at("inference_count"), stats.at("execution_count"), 0};
  for (const auto& batch : stats.at("batch_stats")) runs.run_ns += batch.at("compute_infer").at("ns").get<uint64_t>();
  return runs;
}

// wrk's latency figure ("245.12us", "1.23ms", "2.00s") in microseconds.
double wrk_microseconds(const std::string& text) {
  const double value = std::atof(text.c_str());
  if (text.ends_with("us")) return value;
  if (text.ends_with("ms")) return value * 1e3;
  return value * 1e6;
}

// CPUs in a taskset list such as "8-15" or "2,4-5".
int count_cpus(const std::string& list) {
  int count = 0;
  for (size_t at = 0; at < list.size();) {
    const size_t end = std::min(list.find(',', at), list.size());
    const std::string part = list.substr(at, end - at);
    const size_t dash = part.find('-');
    count += dash == std::string::npos ? 1 : std::stoi(part.substr(dash + 1)) - std::stoi(part.substr(0, dash)) + 1;
    at = end + 1;
  }
  return count;
}

// wrk (Debian's `wrk`, epoll-driven) on `path` with `clients` connections, the request made by the
// Lua `script` (none: a GET), on `client_cpus` with a thread per CPU (empty: anywhere, 2 threads).
// Its clients cost the cores far less than 64 blocking httplib client threads.
Row run_wrk(const testing::ServeProcess& server, const std::string& path, int clients, double seconds,
            const std::filesystem::path& script, const std::string& client_cpus) {
  const int threads = std::min(clients, client_cpus.empty() ? 2 : count_cpus(client_cpus));
  const std::string command = (client_cpus.empty() ? "" : "taskset -c " + client_cpus + " ") + "wrk --latency -t " +
                              std::to_string(threads) + " -c " +
                              std::to_string(clients) + " -d " + std::to_string(static_cast<int>(seconds)) + "s" +
                              (script.empty() ? "" : " -s " + script.string()) + " http://127.0.0.1:" +
                              std::to_string(server.port()) + path + " 2>&1";
  std::FILE* out = ::popen(command.c_str(), "r");
  if (!out) throw std::runtime_error("bench_serve: cannot run wrk");
  Row row;
  int failures = 0;
  char line[512];
  while (std::fgets(line, sizeof line, out)) {
    char figure[64];
    double value = 0;
    if (std::sscanf(line, " 50%% %63s", figure) == 1) row.p50_us = wrk_microseconds(figure);
    else if (std::sscanf(line, " 99%% %63s", figure) == 1) row.p99_us = wrk_microseconds(figure);
    else if (std::sscanf(line, "Requests/sec: %lf", &value) == 1) row.requests_per_s = value;
    else if (std::strncmp(line, "FAILED", 6) == 0 || std::strstr(line, "Non-2xx") || std::strstr(line, "Socket errors"))
      ++failures;
  }
  ::pclose(out);
  if (failures > 0) std::fprintf(stderr, "bench_serve: wrk saw failed requests or socket errors\n");
  return row;
}

// The inference load from wrk. The request is wrk's Lua `wrk.body`, read from `body_file`.
Row load_infer_with_wrk(const testing::ServeProcess& server, const std::string& model_name, int clients, double seconds,
                        const std::string& body_file, size_t header_length, const std::filesystem::path& dir,
                        const std::string& client_cpus) {
  const auto script = dir / "infer.lua";
  {
    std::FILE* f = std::fopen(script.c_str(), "w");
    std::fprintf(f,
                 "wrk.method = \"POST\"\n"
                 "wrk.headers[\"Content-Type\"] = \"application/octet-stream\"\n"
                 "wrk.headers[\"Inference-Header-Content-Length\"] = \"%zu\"\n"
                 "local file = io.open(\"%s\", \"rb\")\n"
                 "wrk.body = file:read(\"*all\")\n"
                 "file:close()\n"
                 "function response(status) if status ~= 200 then print(\"FAILED \" .. status) end end\n",
                 header_length, body_file.c_str());
    std::fclose(f);
  }
  return run_wrk(server, "/v2/models/" + model_name + "/infer", clients, seconds, script, client_cpus);
}

// `GET /v2/health/ready` from the same clients: what HTTP alone costs on this machine (loopback
// TCP, the HTTP stacks, the thread switches) with no inference in it. At 1 client its p50 is one
// round trip; at 64 its throughput is the most any inference load can reach here.
Row load_health(const testing::ServeProcess& server, int clients, double seconds, bool wrk,
                const std::string& client_cpus) {
  if (wrk) return run_wrk(server, "/v2/health/ready", clients, seconds, {}, client_cpus);
  return load(server, clients, seconds, [](httplib::Client& client) { return client.Get("/v2/health/ready"); });
}

// With a pause, each run follows `pause` of sleep, as a server's run follows the wait for the
// next request: whatever the machine does meanwhile may evict the weights from the caches.
double in_process_p50_us(Served& served, std::chrono::microseconds pause = {}) {
  const Tensor x = randn(served.input_shape);
  nn::Model& model = served.model;
  NoGradGuard no_grad;
  std::vector<double> times;
  for (int i = 0; i < 2000; ++i) {
    if (pause.count() > 0) std::this_thread::sleep_for(pause);
    const auto start = Clock::now();
    model.run({x});
    times.push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count());
  }
  return percentile(times, 0.5);
}

// Rows per second run in process at `batch` rows a run, back to back for 2 s. Batch 64 against
// batch 1 is the most batching can gain: a server adds its per-request costs to both.
double in_process_rows_per_s(Served& served, int64_t batch) {
  std::vector<int64_t> shape = served.input_shape;
  shape[0] = batch;
  const Tensor x = randn(shape);
  nn::Model& model = served.model;
  NoGradGuard no_grad;
  for (int i = 0; i < 10; ++i) model.run({x});
  int64_t runs = 0;
  const auto start = Clock::now();
  while (Clock::now() - start < std::chrono::seconds(2)) {
    model.run({x});
    ++runs;
  }
  return static_cast<double>(runs * batch) / std::chrono::duration<double>(Clock::now() - start).count();
}

}  // namespace

int main(int argc, char** argv) {
  double seconds = 3;
  bool wrk = false;
  std::string which = "mlp";
  std::string wakeup_latency_us;  // empty: none asked
  std::string client_cpus;        // empty: wrk runs anywhere
  std::vector<std::string> extra_server_args;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--model") == 0 && i + 1 < argc) which = argv[++i];
    else if (std::strcmp(argv[i], "--seconds") == 0 && i + 1 < argc) seconds = std::atof(argv[++i]);
    else if (std::strcmp(argv[i], "--client") == 0 && i + 1 < argc) wrk = std::strcmp(argv[++i], "wrk") == 0;
    else if (std::strcmp(argv[i], "--cpu-wakeup-latency-us") == 0 && i + 1 < argc) wakeup_latency_us = argv[++i];
    else if (std::strcmp(argv[i], "--client-cpus") == 0 && i + 1 < argc) client_cpus = argv[++i];
    else if (std::strcmp(argv[i], "--server-arg") == 0 && i + 1 < argc) extra_server_args.push_back(argv[++i]);
  }
  if (which != "mlp" && which != "cnn" && which != "linear") {
    std::fprintf(stderr, "bench_serve: --model should be mlp, cnn or linear, got '%s'\n", which.c_str());
    return 1;
  }
  if (!client_cpus.empty() && !wrk) {
    std::fprintf(stderr, "bench_serve: --client-cpus needs --client wrk\n");
    return 1;
  }
  std::optional<serve::CpuWakeupLatency> wakeup_latency;
  if (!wakeup_latency_us.empty()) hold_cpu_wakeup_latency(wakeup_latency, std::stoi(wakeup_latency_us), "bench_serve");
  const auto dir = std::filesystem::temp_directory_path() / ("strata_bench_serve_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string hub_path = (dir / "hub.db").string();
  Served served = make_served(which);
  {
    auto hub = hub::Hub::open(hub_path);
    lifecycle::save_model(hub, served.name, served.model);
  }
  served.model.eval();
  const std::string clients_are =
      !wrk ? "httplib threads in this process"
           : client_cpus.empty() ? "wrk (2 threads)" : "wrk on CPUs " + client_cpus + " (a thread per CPU)";
  std::printf("%s, batch-1 requests, binary tensors, %.0f s per row, clients: %s, CPU wake-up latency: %s\n",
              which == "cnn"      ? "CNN of make run (conv 16 5x5, conv 32 5x5, dense 256)"
              : which == "linear" ? "one dense layer 784-10"
                                  : "MLP 784-800-800-10",
              seconds, clients_are.c_str(),
              wakeup_latency ? (wakeup_latency_us + " us (PM QoS held)").c_str() : "not held");
  size_t header_length = 0;
  const auto body_file = dir / "request.bin";
  {
    const std::string body = binary_request(randn(served.input_shape), header_length);
    std::FILE* f = std::fopen(body_file.c_str(), "wb");
    std::fwrite(body.data(), 1, body.size(), f);
    std::fclose(f);
  }
  if (!extra_server_args.empty()) {
    std::string joined;
    for (const auto& arg : extra_server_args) joined += " " + arg;
    std::printf("every server also gets:%s\n", joined.c_str());
  }
  cpu_set_t own_cpus;
  CPU_ZERO(&own_cpus);
  ::sched_getaffinity(0, sizeof own_cpus, &own_cpus);
  std::printf("the floor and the servers run on %d CPUs (this process's affinity)\n", CPU_COUNT(&own_cpus));
  const double floor_p50_us = in_process_p50_us(served);
  std::printf("in-process batch-1 latency (the floor): p50 %.0f us\n", floor_p50_us);
  const double after_pause_p50_us = in_process_p50_us(served, std::chrono::microseconds(60));
  std::printf("the same after 60 us of sleep before each run: p50 %.0f us\n", after_pause_p50_us);
  const double batch_1 = in_process_rows_per_s(served, 1), batch_64 = in_process_rows_per_s(served, 64);
  std::printf("in-process rows/s: batch 1 %.0f, batch 64 %.0f (%.2fx: the most batching can gain)\n\n", batch_1,
              batch_64, batch_64 / batch_1);
  std::printf("%-34s %8s %12s %10s %10s %9s %9s\n", "server", "clients", "requests/s", "p50 us", "p99 us", "rows/run",
              "run us");
  const std::vector<std::pair<std::string, std::vector<std::string>>> configs = {
      {"no batching (--max-batch-size 1)", {"--max-batch-size", "1"}},
      {"dynamic batching (64, 0 us delay)", {"--max-batch-size", "64"}},
  };
  std::vector<std::string> server_args = {"--model", served.name, "--http-threads", "80"};
  if (wakeup_latency) server_args.insert(server_args.end(), {"--cpu-wakeup-latency-us", wakeup_latency_us});
  server_args.insert(server_args.end(), extra_server_args.begin(), extra_server_args.end());
  {
    // HTTP alone does not reach the batcher: one server, with its default flags, serves both rows.
    testing::ServeProcess server(hub_path, server_args);
    for (int clients : {1, 64}) {
      const Row http = load_health(server, clients, seconds, wrk, client_cpus);
      std::printf("%-34s %8d %12.0f %10.0f %10.0f %9s %9s\n", "HTTP alone (GET /v2/health/ready)", clients,
                  http.requests_per_s, http.p50_us, http.p99_us, "-", "-");
    }
  }
  std::map<int, std::vector<Row>> by_clients;  // each config's row, in the configs' order
  for (const auto& [label, flags] : configs) {
    std::vector<std::string> args = server_args;
    args.insert(args.end(), flags.begin(), flags.end());
    testing::ServeProcess server(hub_path, args);
    load_infer(server, served, 4, 0.5);  // warm up: connections, the allocator's caches, oneDNN's primitives
    for (int clients : {1, 16, 64}) {
      const Runs before = server_runs(server, served.name);
      const Row row = wrk ? load_infer_with_wrk(server, served.name, clients, seconds, body_file.string(), header_length, dir,
                                                    client_cpus)
                          : load_infer(server, served, clients, seconds);
      const Runs after = server_runs(server, served.name);
      const double runs = static_cast<double>(std::max<uint64_t>(1, after.runs - before.runs));
      std::printf("%-34s %8d %12.0f %10.0f %10.0f %9.1f %9.0f\n", label.c_str(), clients, row.requests_per_s, row.p50_us,
                  row.p99_us, static_cast<double>(after.rows - before.rows) / runs,
                  static_cast<double>(after.run_ns - before.run_ns) / runs / 1e3);
      std::fflush(stdout);
      by_clients[clients].push_back(row);
    }
  }
  // The issue's two targets, from the rows above.
  std::printf("\n1-client overhead over the floor (target <= 50 us): no batching %.0f us, dynamic batching %.0f us\n",
              by_clients[1][0].p50_us - floor_p50_us, by_clients[1][1].p50_us - floor_p50_us);
  std::printf("  (of which a run's slowdown after an idle gap, in process with no server: %.0f us)\n",
              after_pause_p50_us - floor_p50_us);
  std::printf("64 clients: dynamic batching gives %.2fx the requests/s of no batching (target >= 3x; the model's own "
              "ceiling %.2fx)\n",
              by_clients[64][1].requests_per_s / by_clients[64][0].requests_per_s, batch_64 / batch_1);
  std::filesystem::remove_all(dir);
  return 0;
}
