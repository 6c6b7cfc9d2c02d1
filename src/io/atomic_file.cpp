#include "strata/io/atomic_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <random>

#include "strata/core/error.hpp"

namespace strata::io {
namespace {

constexpr size_t kBufferBytes = size_t{1} << 20;

[[noreturn]] void fail(const std::string& what, const std::string& path) {
  throw Error("cannot " + what + " " + path + ": " + std::strerror(errno));
}

std::string temporary_name(const std::string& path) {
  std::random_device rd;
  char suffix[24];
  std::snprintf(suffix, sizeof suffix, ".tmp-%08x%08x", rd(), rd());
  return path + suffix;
}

}  // namespace

AtomicFile::AtomicFile(std::string path) : path_(std::move(path)), temporary_(temporary_name(path_)) {
  fd_ = ::open(temporary_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd_ < 0) fail("create the temporary file for", path_);
  buffer_.reserve(kBufferBytes);
}

AtomicFile::~AtomicFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!committed_) ::unlink(temporary_.c_str());
}

void AtomicFile::write(const char* data, size_t n) {
  if (buffer_.size() + n <= kBufferBytes) {
    buffer_.append(data, n);
    return;
  }
  flush_buffer();
  if (n < kBufferBytes) buffer_.append(data, n);
  else write_all(data, n);  // a large piece goes straight to the file
}

void AtomicFile::flush_buffer() {
  write_all(buffer_.data(), buffer_.size());
  buffer_.clear();
}

void AtomicFile::write_all(const char* data, size_t n) {
  while (n > 0) {  // a short write is continued
    const ssize_t w = ::write(fd_, data, n);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) fail("write", path_);
    data += w;
    n -= static_cast<size_t>(w);
  }
}

void AtomicFile::commit() {
  STRATA_CHECK(!committed_, "AtomicFile: ", path_, " was committed already");
  flush_buffer();
  if (::fsync(fd_) != 0) fail("sync", path_);
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) fail("close", path_);
  if (::rename(temporary_.c_str(), path_.c_str()) != 0) fail("replace", path_);
  committed_ = true;
  // The new name survives a crash once the folder is synced. The file is whole either way; a
  // failure here is still reported, as the save may not be durable.
  const std::string folder = std::filesystem::path(path_).parent_path().string();
  const int dir = ::open(folder.empty() ? "." : folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) fail("open the folder of", path_);
  const int rc = ::fsync(dir);
  ::close(dir);
  if (rc != 0) fail("sync the folder of", path_);
}

}  // namespace strata::io
