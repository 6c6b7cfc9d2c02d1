// ZIP archives as NumPy's .npz uses them: entries stored or deflated, read through the
// central directory (zip64 included) with every offset and size checked against the file's
// size before anything is allocated, and every entry's CRC-32 verified.
#pragma once
#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include "strata/io/atomic_file.hpp"

namespace strata::io::detail {

class ZipReader {
 public:
  struct Entry {
    std::string name;
    uint16_t method;  // 0 stored, 8 deflate
    uint32_t crc;
    uint64_t compressed_size, size, local_offset;
  };
  // Throws strata::Error naming `path` when it cannot be opened or is not a valid ZIP archive.
  explicit ZipReader(const std::string& path);
  const std::vector<Entry>& entries() const { return entries_; }
  // The entry's uncompressed bytes, CRC-checked.
  std::string read(const Entry& entry);

 private:
  std::string read_at(uint64_t offset, uint64_t n, const char* what);
  std::string path_;
  std::ifstream file_;
  uint64_t file_size_ = 0;
  std::vector<Entry> entries_;
};

// Writes an archive whole or not at all (AtomicFile): the path keeps what it held until finish().
class ZipWriter {
 public:
  explicit ZipWriter(const std::string& path);
  // Appends an entry; `compress` deflates it (numpy.savez_compressed), else it is stored.
  void add(const std::string& name, const std::string& bytes, bool compress);
  // Writes the central directory and puts the archive in place.
  void finish();

 private:
  std::string path_;
  AtomicFile file_;
  uint64_t offset_ = 0;
  std::string directory_;
  uint64_t count_ = 0;
};

}  // namespace strata::io::detail
