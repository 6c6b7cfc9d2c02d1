#include "strata/serve/cpu_wakeup_latency.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <stdexcept>

namespace strata::serve {

CpuWakeupLatency::CpuWakeupLatency(int max_microseconds, const std::filesystem::path& device) {
  if (max_microseconds < 0)
    throw std::invalid_argument("the CPU wake-up latency should be 0 or more microseconds, got " +
                                std::to_string(max_microseconds));
  const int fd = ::open(device.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) {
    why_not_ = device.string() + ": " + std::strerror(errno);
    return;
  }
  // The device takes the value as a binary 32-bit integer (a hex string also works).
  const int32_t value = max_microseconds;
  if (::write(fd, &value, sizeof value) != static_cast<ssize_t>(sizeof value)) {
    why_not_ = device.string() + ": " + std::strerror(errno);
    ::close(fd);
    return;
  }
  fd_ = fd;
}

CpuWakeupLatency::~CpuWakeupLatency() {
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace strata::serve
