// CpuWakeupLatency: while it lives, asks the kernel to keep every CPU out of idle states slower
// to leave than a given number of microseconds (Linux PM QoS, /dev/cpu_dma_latency; tuned's
// latency-performance profile and cyclictest use the same request). A request that arrives at a
// sleeping CPU otherwise waits for it to wake: in a VM whose guest halt polling is off, a
// halted vCPU costs a VM exit and entry, ~60 us of every loopback round trip on this machine
// (docs/serving.md). 0 keeps idle CPUs polling: lowest latency, a core's power each.
// The kernel drops the request when the file is closed, so a killed process leaves nothing behind.
#pragma once
#include <filesystem>
#include <string>

namespace strata::serve {

class CpuWakeupLatency {
 public:
  // Holds the request on `device` (needs write access: root by default). When it cannot, held()
  // is false and why_not() says why: the caller decides whether that matters. Throws
  // std::invalid_argument for a negative latency.
  explicit CpuWakeupLatency(int max_microseconds,
                            const std::filesystem::path& device = "/dev/cpu_dma_latency");
  ~CpuWakeupLatency();
  CpuWakeupLatency(const CpuWakeupLatency&) = delete;
  CpuWakeupLatency& operator=(const CpuWakeupLatency&) = delete;

  bool held() const { return fd_ >= 0; }
  const std::string& why_not() const { return why_not_; }

 private:
  int fd_ = -1;
  std::string why_not_;
};

}  // namespace strata::serve
