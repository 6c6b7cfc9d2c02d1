#include "child_process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <exception>
#include <new>
#include <vector>

#include "strata/core/error.hpp"
#include "strata/core/limits.hpp"

// Defined by the sanitizer runtimes, absent (null) in other builds.
extern "C" void __sanitizer_set_death_callback(void (*callback)()) __attribute__((weak));

namespace strata::io {
namespace {

// The child writes frames: a kind byte, an 8-byte little-endian length, that many bytes.
// A LimitError keeps its type across the pipe: callers tell a limit from a malformed file.
constexpr char kData = 'D', kError = 'E', kLimitError = 'L', kDone = 'K';
constexpr uint64_t kMaxErrorBytes = 64 * 1024;  // the child is running hostile input: bound what we take
constexpr size_t kChunkBytes = 64 * 1024;

// Calls io(fd, data, n) until all n bytes have passed; false on an error or an early end of file.
template <class Byte, class Io>
bool all_bytes(int fd, Byte* data, size_t n, Io io) {
  while (n > 0) {
    const ssize_t done = io(fd, data, n);
    if (done < 0 && errno == EINTR) continue;
    if (done <= 0) return false;
    data += done;
    n -= static_cast<size_t>(done);
  }
  return true;
}

bool read_all(int fd, char* data, size_t n) { return all_bytes(fd, data, n, ::read); }

void write_frame(int fd, char kind, const char* data, uint64_t n) {
  char head[9] = {kind};
  for (int i = 0; i < 8; ++i) head[1 + i] = static_cast<char>(n >> (8 * i) & 0xFF);
  if (!write_all(fd, head, sizeof head) || !write_all(fd, data, n)) _exit(1);  // the parent stopped reading
}

// Caps the process's data mappings (heap and private memory, RLIMIT_DATA) at what it has now
// plus `budget`. The current size is counted in: a sanitizer's shadow memory alone is terabytes.
void cap_memory(uint64_t budget) {
  std::FILE* status = std::fopen("/proc/self/status", "r");
  if (status == nullptr) return;
  char line[256];
  uint64_t data_kb = 0;
  while (std::fgets(line, sizeof line, status) != nullptr)
    if (std::sscanf(line, "VmData: %" SCNu64 " kB", &data_kb) == 1) break;
  std::fclose(status);
  const rlim_t cap = data_kb * 1024 + budget;
  const rlimit limit{cap, cap};
  ::setrlimit(RLIMIT_DATA, &limit);
}

[[noreturn]] void run_child(int fd, uint64_t memory_budget, const std::function<void(const ByteSink&)>& produce) {
  // The child's crash is for the parent to report: none of the parent's handlers runs for it (a
  // crash reporter's, a sanitizer's death callback, libFuzzer's, which would save the parent's
  // input as a crash of the parent).
  for (const int sig : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT}) ::signal(sig, SIG_DFL);
  if (__sanitizer_set_death_callback != nullptr) __sanitizer_set_death_callback(nullptr);
  cap_memory(memory_budget);
  const auto out_of_memory = [fd] {
    static const char message[] = "the reader ran out of the memory it may use";
    write_frame(fd, kError, message, sizeof message - 1);
  };
  try {
    produce([fd](const char* data, size_t n) { write_frame(fd, kData, data, n); });
    write_frame(fd, kDone, nullptr, 0);
  } catch (const std::bad_alloc&) {
    out_of_memory();
  } catch (const OutOfMemoryError&) {  // a tensor's allocation
    out_of_memory();
  } catch (const LimitError& e) {
    write_frame(fd, kLimitError, e.what(), std::strlen(e.what()));
  } catch (const std::exception& e) {
    write_frame(fd, kError, e.what(), std::strlen(e.what()));
  } catch (...) {
    static const char unknown[] = "an exception that is not a std::exception";
    write_frame(fd, kError, unknown, sizeof unknown - 1);
  }
  _exit(0);  // no atexit handlers, static destructors or stdio flushes of the parent's state
}

// How the child ended: cleanly (exit status 0), or as `how` says ("killed by signal 11
// (Segmentation fault)"). Unknown when the program reaps its children itself (SIGCHLD ignored).
struct Ending {
  bool clean = false;
  bool known = true;
  std::string how;
};

// The parent's end: the read end of the pipe and the child, closed and reaped however the parent
// leaves. A parent that stops reading early kills the child: it may be stuck in the library.
class Child {
 public:
  Child(pid_t pid, int fd) : pid_(pid), fd_(fd) {}
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;
  ~Child() { reap(/*kill_first=*/true); }
  int fd() const { return fd_; }

  Ending reap(bool kill_first) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
    if (pid_ < 0) return {false, false, "already reaped"};
    int status = 0;
    // Killed only while it runs: once it has ended and been reaped (by us, or by the kernel when
    // SIGCHLD is ignored) its pid may belong to another process.
    pid_t r = kill_first ? wait_for(status, WNOHANG) : 0;
    if (r == 0) {
      if (kill_first) ::kill(pid_, SIGKILL);
      r = wait_for(status, 0);
    }
    pid_ = -1;
    if (r < 0) return {false, false, "its status is unknown: " + std::string(std::strerror(errno))};
    if (WIFSIGNALED(status))
      return {false, true,
              "killed by signal " + std::to_string(WTERMSIG(status)) + " (" + strsignal(WTERMSIG(status)) + ")"};
    return {WEXITSTATUS(status) == 0, true, "exit status " + std::to_string(WEXITSTATUS(status))};
  }

 private:
  pid_t wait_for(int& status, int options) const {
    pid_t r;
    do r = ::waitpid(pid_, &status, options);
    while (r < 0 && errno == EINTR);
    return r;
  }

  pid_t pid_;
  int fd_;
};

}  // namespace

bool write_all(int fd, const char* data, size_t n) { return all_bytes(fd, data, n, ::write); }

void run_in_child_process(const std::string& what, uint64_t memory_budget,
                          const std::function<void(const ByteSink&)>& produce,
                          const std::function<void(const char* data, size_t n)>& consume) {
  int fds[2];
  STRATA_CHECK(::pipe2(fds, O_CLOEXEC) == 0, what, ": cannot make a pipe for the reader's process: ",
               std::strerror(errno));
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    run_child(fds[1], memory_budget, produce);
  }
  const int fork_error = errno;
  ::close(fds[1]);
  if (pid < 0) {
    ::close(fds[0]);
    throw Error(what + ": cannot start the reader's process: " + std::strerror(fork_error));
  }
  Child child(pid, fds[0]);
  // At the end of the output the child has ended or is ending: its status says how. Output that
  // makes no sense comes from a child whose memory is corrupt: it is killed.
  const auto crashed = [&](const std::string& how, bool kill_first) {
    throw Error(what + ": the reader's process crashed (" + child.reap(kill_first).how + how +
                "); the file is malformed");
  };
  std::vector<char> chunk(kChunkBytes);
  for (;;) {
    char head[9];
    if (!read_all(child.fd(), head, sizeof head)) crashed("", false);
    uint64_t n = 0;
    for (int i = 0; i < 8; ++i) n |= uint64_t{static_cast<unsigned char>(head[1 + i])} << (8 * i);
    if (head[0] == kDone) break;
    if (head[0] == kError || head[0] == kLimitError) {
      if (n > kMaxErrorBytes) crashed(", an error message of " + std::to_string(n) + " bytes", true);
      std::string message(n, '\0');
      if (!read_all(child.fd(), message.data(), n)) crashed(", its error message cut short", false);
      child.reap(false);
      if (head[0] == kLimitError) throw LimitError(message);
      throw Error(message);
    }
    if (head[0] != kData) crashed(", its output garbled", true);
    while (n > 0) {
      const size_t piece = n < kChunkBytes ? static_cast<size_t>(n) : kChunkBytes;
      if (!read_all(child.fd(), chunk.data(), piece)) crashed(", its output cut short", false);
      consume(chunk.data(), piece);
      n -= piece;
    }
  }
  const Ending ending = child.reap(false);
  STRATA_CHECK(ending.clean || !ending.known, what, ": the reader's process finished its output but ended with ", ending.how);
}

}  // namespace strata::io
