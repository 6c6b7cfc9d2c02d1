// A benchmark's `--cpu-wakeup-latency-us N`: holds the Linux PM QoS request for the whole run, as
// `strata serve --cpu-wakeup-latency-us N` does, or exits 1 saying why it cannot (a figure taken
// without it would be quoted as one taken with it).
#pragma once
#include <cstdio>
#include <cstdlib>
#include <optional>

#include "strata/serve/cpu_wakeup_latency.hpp"

inline void hold_cpu_wakeup_latency(std::optional<strata::serve::CpuWakeupLatency>& request, int microseconds,
                                    const char* program) {
  request.emplace(microseconds);
  if (request->held()) return;
  std::fprintf(stderr, "%s: cannot hold the CPU wake-up latency request: %s\n", program, request->why_not().c_str());
  std::exit(1);
}
