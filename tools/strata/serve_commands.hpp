// `strata serve --hub URL --model NAME[:VERSION]... [--port P] [--host H] [--token T] ...`: serves
// static hub models over the Open Inference Protocol v2 (HTTP/REST) until SIGTERM or SIGINT, then
// stops accepting, answers what is queued and in flight, and exits 0 (docs/serving.md).
#pragma once
#include <CLI/CLI.hpp>

namespace strata::cli {

void add_serve_commands(CLI::App& app);

}  // namespace strata::cli
