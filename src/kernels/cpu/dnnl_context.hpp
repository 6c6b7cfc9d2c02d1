// The one oneDNN CPU engine, a stream per thread, and a cache of created primitives keyed by whatever
// describes them (shapes, strides, attributes), so a repeated shape pays no creation cost.
// oneDNN runs on the same OpenMP threads as our own loops.
#pragma once
#include <mutex>
#include <string>
#include <unordered_map>

#include "kernels/cpu/thread_budget.hpp"
#include "oneapi/dnnl/dnnl.hpp"
#include "strata/core/dtype.hpp"

namespace strata::kernels::cpu {

dnnl::engine& dnnl_engine();
dnnl::stream& dnnl_stream();
dnnl::memory::data_type dnnl_type(DType t);  // throws for dtypes oneDNN does not compute in

// oneDNN as Debian builds it (without DNNL_ENABLE_CONCURRENT_EXEC) gives primitives in its
// default scratchpad mode a scratchpad common to all of them, which the docs allow only if each
// primitive runs on the thread that created it. The caches here serve every thread, so a
// primitive made on one thread ran on another (two served replicas, a worker's concurrent
// tasks) and silently got wrong numbers. So every primitive is made with `own_scratchpad` and
// run by `run_primitive`, which lends it the calling thread's own (the "user" mode, safe while
// no two runs share a buffer). tests/reliability/concurrent_primitives.cpp. Prepared kernels
// (prepared_kernels.cpp), which run once at a time, give each primitive a scratchpad of its own.
dnnl::primitive_attr own_scratchpad(dnnl::primitive_attr attr = {});
// Runs `prim`, made from `pd`, on this thread's stream with `args` and this thread's scratchpad,
// and waits for it.
void run_primitive(const dnnl::primitive& prim, const dnnl::primitive_desc_base& pd,
                   std::unordered_map<int, dnnl::memory> args);

// A thread-safe map from a key string to a primitive (or primitive descriptor bundle) P. oneDNN
// plans a primitive for the thread count of its creation, so that count (the thread budget,
// applied here) is part of the key.
template <class P>
class PrimitiveCache {
 public:
  template <class Make>
  P& get(const std::string& key, Make&& make) {
    const std::string keyed = key + "|threads=" + std::to_string(apply_thread_budget());
    std::lock_guard<std::mutex> lock(mu_);
    auto it = items_.find(keyed);
    if (it == items_.end()) it = items_.emplace(keyed, make()).first;
    return it->second;
  }

 private:
  std::mutex mu_;
  std::unordered_map<std::string, P> items_;
};

// Appends integers to a cache key: key_of("conv", n, c, h) -> "conv|n|c|h".
template <class... Args>
std::string key_of(const char* name, const Args&... args) {
  std::string k = name;
  ((k += '|', k += std::to_string(args)), ...);
  return k;
}

}  // namespace strata::kernels::cpu
