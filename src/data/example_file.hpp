// The file format of the on-disk caches: examples one after another, then an index.
//   "STRATA-EXAMPLES-1\n", records, offsets (int64 per record), record count (int64), "END!"
// A record: field count (uint32), then per field dtype (uint8), rank (uint32), sizes (int64
// each) and the contiguous data. Little-endian, as the host writes it.
#pragma once
#include <cstdio>
#include <string>
#include <vector>

#include "strata/data/example.hpp"

namespace strata::data::detail {

// Writes a file under a temporary name beside `path`; commit() renames it to `path`. Destroyed
// without commit() (an interrupted pass, an error), it removes the temporary file.
class ExampleFileWriter {
 public:
  explicit ExampleFileWriter(std::string path);
  ~ExampleFileWriter();
  void write(const Example& example);
  void commit();

 private:
  std::string path_, temp_;
  std::FILE* file_ = nullptr;
  std::vector<int64_t> offsets_;
};

// Random access to a committed file; read() is safe from several threads.
class ExampleFileReader {
 public:
  // Throws strata::Error naming the file when it is not such a file or is truncated.
  explicit ExampleFileReader(const std::string& path);
  ~ExampleFileReader();
  int64_t size() const { return static_cast<int64_t>(offsets_.size()); }
  Example read(int64_t index) const;

 private:
  std::string path_;
  int fd_ = -1;
  std::vector<int64_t> offsets_;  // offsets_.back() is followed by the index's own offset
  int64_t index_offset_ = 0;
};

}  // namespace strata::data::detail
