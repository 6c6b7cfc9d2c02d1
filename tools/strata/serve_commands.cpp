#include "serve_commands.hpp"

#include <iostream>
#include <memory>
#include <optional>

#include "existing_hub.hpp"
#include "option_checks.hpp"
#include "stop_signal.hpp"
#include "strata/serve/cpu_wakeup_latency.hpp"
#include "strata/serve/inference_server.hpp"

namespace strata::cli {
namespace {

struct ServeArgs {
  std::string url;
  std::vector<std::string> models;
  serve::ServerOptions server;
  serve::BatchingOptions batching;
  int64_t max_queue_delay_us = 0;
  int64_t request_timeout_ms = 30'000;
  int64_t io_timeout_s = 30;
  int64_t poll_ms = 1'000;
  std::optional<int> cpu_wakeup_latency_us;
};

void run_serve(ServeArgs& args) {
  StopSignal stop_signal;  // first: a signal once we say we listen must stop, not kill
  std::vector<serve::ModelSpec> specs;
  for (const auto& text : args.models) specs.push_back(serve::parse_model_spec(text));
  args.batching.max_queue_delay = std::chrono::microseconds(args.max_queue_delay_us);
  args.server.request_timeout = std::chrono::milliseconds(args.request_timeout_ms);
  args.server.io_timeout = std::chrono::seconds(args.io_timeout_s);

  std::optional<serve::CpuWakeupLatency> wakeup_latency;
  if (args.cpu_wakeup_latency_us) {
    wakeup_latency.emplace(*args.cpu_wakeup_latency_us);
    if (wakeup_latency->held())
      std::cout << "strata serve: holding CPU wake-up latency at most " << *args.cpu_wakeup_latency_us << " us"
                << std::endl;
    else
      std::cerr << "strata serve: warning: cannot hold a CPU wake-up latency request (" << wakeup_latency->why_not()
                << "; it needs root or write access to the device): serving without it" << std::endl;
  }
  require_existing_hub(args.url);
  serve::ModelRepository models(args.url, specs, args.batching.workers);
  serve::DynamicBatcher batcher(args.batching);
  serve::InferenceServer server(models, batcher, args.server);
  const int port = server.bind();
  models.poll_every(std::chrono::milliseconds(args.poll_ms));
  std::string served;
  for (const auto& model : models.all())
    served += (served.empty() ? "" : ", ") + model->name + " v" + std::to_string(model->version);
  std::cout << "strata serve: listening on http://" << args.server.host << ":" << port << " (" << served << ")"
            << std::endl;
  stop_signal.serve_until([&] { server.serve(); }, [&] { server.stop(); });
  std::cout << "strata serve: stopped" << std::endl;
}

}  // namespace

void add_serve_commands(CLI::App& app) {
  auto args = std::make_shared<ServeArgs>();
  CLI::App* cmd = app.add_subcommand("serve", "Serve hub models over the Open Inference Protocol v2 (HTTP)");
  cmd->add_option("--hub", args->url, "Hub URL: a SQLite path, sqlite://PATH or postgresql://...")->required();
  cmd->add_option("--model", args->models, "NAME (follows the latest version), NAME:VERSION, or NAME@max:METRIC / NAME@min:METRIC (follows the best version by a metric); repeat for more")
      ->required();
  cmd->add_option("--host", args->server.host, "Address to listen on")->capture_default_str();
  cmd->add_option("--port", args->server.port, "Port to listen on; 0 picks a free one")->capture_default_str();
  cmd->add_option("--token", args->server.token, "Require 'Authorization: Bearer TOKEN' on every route")
      ->envname("STRATA_SERVE_TOKEN");
  cmd->add_option("--max-batch-size", args->batching.max_batch_size, "Rows per batch; 1 turns dynamic batching off")
      ->capture_default_str()->check(at_least(1));
  cmd->add_option("--max-queue-delay-us", args->max_queue_delay_us,
                  "How long the oldest queued request waits for a fuller batch")->capture_default_str()
      ->check(at_least(0));
  cmd->add_option("--max-queue", args->batching.max_queue, "Requests waiting at most; more get 503")
      ->capture_default_str()->check(at_least(1));
  cmd->add_option("--workers", args->batching.workers,
                  "Batches run at once, each on its own copy of the model and its share of the cores "
                  "(OpenMP threads / N)")
      ->capture_default_str()->check(at_least(1, 1024));
  cmd->add_option("--http-threads", args->server.http_threads, "Connections served at once")
      ->capture_default_str()->check(at_least(1, 10000));
  cmd->add_option("--max-body-bytes", args->server.max_body_bytes, "Largest request body; larger get 413")
      ->capture_default_str()->check(at_least(1, std::numeric_limits<int64_t>::max()));
  cmd->add_option("--timeout-ms", args->request_timeout_ms, "Longest a request may queue and run; then 503")
      ->capture_default_str()->check(at_least(1));
  cmd->add_option("--io-timeout-s", args->io_timeout_s, "Longest to read a request or write a response")
      ->capture_default_str()->check(at_least(1));
  cmd->add_option("--poll-ms", args->poll_ms, "How often to look for newer versions in the hub")
      ->capture_default_str()->check(at_least(1));
  cmd->add_option("--cpu-wakeup-latency-us", args->cpu_wakeup_latency_us,
                  "While serving, keep CPUs out of idle states slower to leave than this (Linux PM QoS, "
                  "/dev/cpu_dma_latency; needs root); 0 keeps idle CPUs polling. Lower latency for more power")
      ->check(at_least(0));
  cmd->callback([args] { run_serve(*args); });
}

}  // namespace strata::cli
