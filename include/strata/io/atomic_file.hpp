// A file replaced whole or not at all: written to a temporary file beside it, synced, then
// renamed over it and the folder synced. A save that fails at any step (a full disk, an I/O
// error, a crash) leaves the previous file as it was and no temporary file behind; readers never
// see a file half-written. Model files and weight files are written this way.
#pragma once
#include <cstddef>
#include <string>

namespace strata::io {

class AtomicFile {
 public:
  // Creates the temporary file ("<path>.tmp-<random>", in the same folder so the rename stays on
  // one file system). Throws strata::Error naming the path and the system's reason.
  explicit AtomicFile(std::string path);
  ~AtomicFile();  // removes the temporary file unless committed
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  // Appends bytes (buffered; a short write is continued, a failed one throws).
  void write(const char* data, size_t n);
  // Flushes, syncs the file, renames it over the path and syncs the folder. Until this returns,
  // the path holds what it held before.
  void commit();

  // The temporary file's path (libraries that write files themselves, by name, write it here).
  const std::string& temporary_path() const { return temporary_; }

 private:
  void flush_buffer();
  void write_all(const char* data, size_t n);
  std::string path_, temporary_, buffer_;
  int fd_ = -1;
  bool committed_ = false;
};

}  // namespace strata::io
