// Interposes the file system calls (syscall_faults.hpp). Each definition below takes the name of
// the C library's function; the real one is found with dlsym(RTLD_NEXT).
#include "syscall_faults.hpp"

#include <arpa/inet.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <mutex>

namespace strata::testing::faults {
namespace {

std::mutex g_mu;  // guards g_folder and g_fired
std::string g_folder;
std::string g_fired;
std::atomic<bool> g_armed{false};
std::atomic<int64_t> g_calls{0};
int64_t g_fail_at = 0;
std::atomic<int> g_port{0};  // arm_connections: the server's port; 0: files
Fault g_fault = Fault::io_error;
thread_local bool t_inside = false;  // a call made by this file (readlink, dlsym) is not counted

int errno_of(Fault f) { return f == Fault::no_space ? ENOSPC : f == Fault::quota ? EDQUOT : EIO; }

bool under_folder(const std::string& path) {
  std::lock_guard lock(g_mu);
  return !g_folder.empty() && path.compare(0, g_folder.size(), g_folder) == 0;
}

std::string path_of_fd(int fd) {
  if (fd < 0) return {};
  char link[64], target[PATH_MAX];
  std::snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  const ssize_t n = ::readlink(link, target, sizeof target - 1);
  return n > 0 ? std::string(target, static_cast<size_t>(n)) : std::string();
}

std::string absolute(const char* path) {
  if (path == nullptr) return {};
  if (path[0] == '/') return path;
  char cwd[PATH_MAX];
  return ::getcwd(cwd, sizeof cwd) ? std::string(cwd) + "/" + path : std::string(path);
}

// What a call under the folder should do: nothing special, or fail with this fault.
enum class Verdict { pass, fail };

Verdict judge(const char* call, const std::string& path) {
  if (!g_armed || t_inside || path.empty()) return Verdict::pass;
  t_inside = true;
  const bool ours = under_folder(path);
  t_inside = false;
  if (!ours) return Verdict::pass;
  const int64_t n = ++g_calls;
  std::lock_guard lock(g_mu);
  if (n != g_fail_at) return Verdict::pass;
  g_fired = std::string(call) + " " + path.substr(path.rfind('/') + 1);
  return Verdict::fail;
}

Verdict judge_fd(const char* call, int fd) {
  if (!g_armed || t_inside) return Verdict::pass;
  t_inside = true;
  const std::string path = path_of_fd(fd);
  t_inside = false;
  return judge(call, path);
}

template <class F>
F real(const char* name) {
  return reinterpret_cast<F>(::dlsym(RTLD_NEXT, name));
}

bool writes(int flags) { return (flags & (O_WRONLY | O_RDWR | O_CREAT | O_TRUNC)) != 0; }

}  // namespace

const char* fault_name(Fault f) {
  switch (f) {
    case Fault::no_space: return "ENOSPC";
    case Fault::io_error: return "EIO";
    case Fault::quota: return "EDQUOT";
    case Fault::short_write: return "a short write";
    case Fault::dropped_connection: return "a dropped connection";
  }
  return "?";
}

void arm(const std::string& folder, int64_t n, Fault fault) {
  std::lock_guard lock(g_mu);
  g_folder = folder;
  g_fail_at = n;
  g_fault = fault;
  g_fired.clear();
  g_calls = 0;
  g_port = 0;
  g_armed = true;
}

void arm_connections(int port, int64_t n) {
  arm("", n, Fault::dropped_connection);
  g_port = port;
}

void disarm() {
  g_armed = false;
  g_port = 0;
}
int64_t calls() { return g_calls; }
std::string fired() {
  std::lock_guard lock(g_mu);
  return g_fired;
}

// For the definitions below: a write-like call that fails sets errno and returns -1, or (a short
// write) passes on half its bytes.
namespace {
template <class Call>
ssize_t write_like(const char* name, int fd, size_t n, Call&& call) {
  if (judge_fd(name, fd) == Verdict::pass) return call(n);
  if (g_fault == Fault::short_write && n > 1) return call(n / 2);
  errno = errno_of(g_fault == Fault::short_write ? Fault::no_space : g_fault);
  return -1;
}
}  // namespace

}  // namespace strata::testing::faults

using namespace strata::testing::faults;

extern "C" {

static ssize_t real_write(int fd, const void* buf, size_t n) {
  static const auto next = real<ssize_t (*)(int, const void*, size_t)>("write");
  return next(fd, buf, n);
}

ssize_t write(int fd, const void* buf, size_t n) {
  return write_like("write", fd, n, [&](size_t k) { return real_write(fd, buf, k); });
}

ssize_t pwrite64(int fd, const void* buf, size_t n, off64_t offset) {
  static const auto next = real<ssize_t (*)(int, const void*, size_t, off64_t)>("pwrite64");
  return write_like("pwrite", fd, n, [&](size_t k) { return next(fd, buf, k, offset); });
}

ssize_t writev(int fd, const iovec* iov, int count) {
  static const auto next = real<ssize_t (*)(int, const iovec*, int)>("writev");
  size_t total = 0;
  for (int i = 0; i < count; ++i) total += iov[i].iov_len;
  return write_like("writev", fd, total, [&](size_t k) {
    if (k == total) return next(fd, iov, count);
    return real_write(fd, iov[0].iov_base, std::min(k, iov[0].iov_len));  // the short write: part of the first piece
  });
}

ssize_t send(int fd, const void* buf, size_t n, int flags) {
  static const auto next = real<ssize_t (*)(int, const void*, size_t, int)>("send");
  if (!g_armed || g_port == 0) return next(fd, buf, n, flags);
  sockaddr_in peer{};
  socklen_t length = sizeof peer;
  if (::getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &length) != 0 || peer.sin_family != AF_INET ||
      ntohs(peer.sin_port) != g_port)
    return next(fd, buf, n, flags);
  const int64_t call = ++g_calls;
  {
    std::lock_guard lock(g_mu);
    if (call != g_fail_at) return next(fd, buf, n, flags);
    g_fired = "send to port " + std::to_string(g_port.load());
  }
  ::shutdown(fd, SHUT_RDWR);  // the connection is gone for both ends, as when the network drops it
  errno = ECONNRESET;
  return -1;
}

int fsync(int fd) {
  static const auto next = real<int (*)(int)>("fsync");
  if (judge_fd("fsync", fd) == Verdict::pass) return next(fd);
  errno = EIO;
  return -1;
}

int fdatasync(int fd) {
  static const auto next = real<int (*)(int)>("fdatasync");
  if (judge_fd("fdatasync", fd) == Verdict::pass) return next(fd);
  errno = EIO;
  return -1;
}

static int open_like(const char* name, const char* path, int flags, mode_t mode, int (*next)(const char*, int, ...)) {
  if (judge(name, absolute(path)) == Verdict::pass) return next(path, flags, mode);
  errno = writes(flags) ? errno_of(g_fault == Fault::short_write ? Fault::no_space : g_fault) : EIO;
  return -1;
}

int open(const char* path, int flags, ...) {
  static const auto next = real<int (*)(const char*, int, ...)>("open");
  va_list args;
  va_start(args, flags);
  const mode_t mode = (flags & (O_CREAT | O_TMPFILE)) ? va_arg(args, mode_t) : 0;
  va_end(args);
  return open_like("open", path, flags, mode, next);
}

int open64(const char* path, int flags, ...) {
  static const auto next = real<int (*)(const char*, int, ...)>("open64");
  va_list args;
  va_start(args, flags);
  const mode_t mode = (flags & (O_CREAT | O_TMPFILE)) ? va_arg(args, mode_t) : 0;
  va_end(args);
  return open_like("open", path, flags, mode, next);
}

static FILE* fopen_like(const char* path, const char* mode, FILE* (*next)(const char*, const char*)) {
  if (judge("fopen", absolute(path)) == Verdict::pass) return next(path, mode);
  const bool writing = std::strpbrk(mode, "wa+") != nullptr;
  errno = writing ? errno_of(g_fault == Fault::short_write ? Fault::no_space : g_fault) : EIO;
  return nullptr;
}

FILE* fopen(const char* path, const char* mode) {
  static const auto next = real<FILE* (*)(const char*, const char*)>("fopen");
  return fopen_like(path, mode, next);
}

FILE* fopen64(const char* path, const char* mode) {
  static const auto next = real<FILE* (*)(const char*, const char*)>("fopen64");
  return fopen_like(path, mode, next);
}

int rename(const char* from, const char* to) noexcept {
  static const auto next = real<int (*)(const char*, const char*)>("rename");
  if (judge("rename", absolute(to)) == Verdict::pass) return next(from, to);
  errno = errno_of(g_fault == Fault::short_write ? Fault::no_space : g_fault);
  return -1;
}

void* mmap(void* address, size_t length, int protection, int flags, int fd, off_t offset) noexcept {
  static const auto next = real<void* (*)(void*, size_t, int, int, int, off_t)>("mmap");
  if (fd < 0 || judge_fd("mmap", fd) == Verdict::pass) return next(address, length, protection, flags, fd, offset);
  errno = ENOMEM;
  return MAP_FAILED;
}

void* mmap64(void* address, size_t length, int protection, int flags, int fd, off64_t offset) noexcept {
  static const auto next = real<void* (*)(void*, size_t, int, int, int, off64_t)>("mmap64");
  if (fd < 0 || judge_fd("mmap", fd) == Verdict::pass) return next(address, length, protection, flags, fd, offset);
  errno = ENOMEM;
  return MAP_FAILED;
}

}  // extern "C"
