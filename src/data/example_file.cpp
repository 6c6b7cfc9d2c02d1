#include "example_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <filesystem>

#include "strata/core/checked_size.hpp"
#include "strata/core/error.hpp"

namespace strata::data::detail {

namespace {

constexpr char kMagic[] = "STRATA-EXAMPLES-1\n";
constexpr size_t kMagicSize = sizeof kMagic - 1;
constexpr char kEnd[] = "END!";

template <class T>
void put(std::string& out, T value) {
  out.append(reinterpret_cast<const char*>(&value), sizeof value);
}

// Reads a T at bytes[pos], checking that it is inside the record.
template <class T>
T take(const std::vector<char>& bytes, size_t& pos, const std::string& path) {
  STRATA_CHECK(pos + sizeof(T) <= bytes.size(), "cache file ", path, ": a record is truncated");
  T value;
  std::memcpy(&value, bytes.data() + pos, sizeof value);
  pos += sizeof value;
  return value;
}

void pread_all(int fd, void* dst, size_t n, int64_t offset, const std::string& path) {
  auto* p = static_cast<char*>(dst);
  while (n > 0) {
    const ssize_t got = ::pread(fd, p, n, offset);
    STRATA_CHECK(got > 0, "cache file ", path, ": cannot read ", n, " bytes at offset ", offset, " (truncated?)");
    p += got, n -= static_cast<size_t>(got), offset += got;
  }
}

}  // namespace

ExampleFileWriter::ExampleFileWriter(std::string path) : path_(std::move(path)) {
  static std::atomic<int> counter{0};
  temp_ = path_ + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
  file_ = std::fopen(temp_.c_str(), "wb");
  STRATA_CHECK(file_ != nullptr, "cache: cannot create ", temp_, " (for ", path_, ")");
  std::fwrite(kMagic, 1, kMagicSize, file_);
}

ExampleFileWriter::~ExampleFileWriter() {
  if (!file_) return;
  std::fclose(file_);
  std::remove(temp_.c_str());
}

void ExampleFileWriter::write(const Example& example) {
  offsets_.push_back(std::ftell(file_));
  std::string header;
  put(header, static_cast<uint32_t>(example.size()));
  std::fwrite(header.data(), 1, header.size(), file_);
  for (const Tensor& field : example) {
    const Tensor t = field.contiguous();
    header.clear();
    put(header, static_cast<uint8_t>(t.dtype()));
    put(header, static_cast<uint32_t>(t.dim()));
    for (int d = 0; d < t.dim(); ++d) put(header, t.size(d));
    std::fwrite(header.data(), 1, header.size(), file_);
    std::fwrite(t.raw_data(), 1, t.nbytes(), file_);
  }
  STRATA_CHECK(!std::ferror(file_), "cache: error while writing ", temp_);
}

void ExampleFileWriter::commit() {
  if (!file_) return;  // committed already
  std::string index;
  for (int64_t o : offsets_) put(index, o);
  put(index, static_cast<int64_t>(offsets_.size()));
  index.append(kEnd, 4);
  std::fwrite(index.data(), 1, index.size(), file_);
  const bool ok = !std::ferror(file_) && std::fclose(file_) == 0;
  file_ = nullptr;
  std::error_code ec;
  if (ok) std::filesystem::rename(temp_, path_, ec);
  if (!ok || ec) std::remove(temp_.c_str());
  STRATA_CHECK(ok && !ec, "cache: cannot write ", path_, ec ? ": " + ec.message() : std::string());
}

ExampleFileReader::ExampleFileReader(const std::string& path) : path_(path) {
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  STRATA_CHECK(fd_ >= 0, "cache: cannot open ", path);
  const int64_t file_size = ::lseek(fd_, 0, SEEK_END);
  char magic[kMagicSize] = {};
  STRATA_CHECK(file_size >= static_cast<int64_t>(kMagicSize + 12), "cache file ", path,
               " is too short to be a Strata example file (delete it to recompute the cache)");
  pread_all(fd_, magic, kMagicSize, 0, path);
  char tail[12];
  pread_all(fd_, tail, 12, file_size - 12, path);
  int64_t n = 0;
  std::memcpy(&n, tail, 8);
  // n is compared with the room for an index (not n * 8 with the size, which could overflow).
  STRATA_CHECK(std::memcmp(magic, kMagic, kMagicSize) == 0 && std::memcmp(tail + 8, kEnd, 4) == 0 && n >= 0 &&
                   n <= (file_size - 12 - static_cast<int64_t>(kMagicSize)) / 8,
               "cache file ", path, " is not a complete Strata example file (delete it to recompute the cache)");
  index_offset_ = file_size - 12 - n * 8;
  offsets_.resize(n);
  pread_all(fd_, offsets_.data(), n * 8, index_offset_, path);
  // Records lie in order between the magic string and the index, so read() never reads past them.
  int64_t previous = static_cast<int64_t>(kMagicSize);
  for (int64_t i = 0; i < n; ++i) {
    STRATA_CHECK(offsets_[i] >= previous && offsets_[i] <= index_offset_, "cache file ", path, ": index entry ", i,
                 " (offset ", offsets_[i], ") is out of order or outside the records; delete it to recompute the cache");
    previous = offsets_[i];
  }
}

ExampleFileReader::~ExampleFileReader() {
  if (fd_ >= 0) ::close(fd_);
}

Example ExampleFileReader::read(int64_t index) const {
  const int64_t begin = offsets_[index], end = index + 1 < size() ? offsets_[index + 1] : index_offset_;
  std::vector<char> bytes(end - begin);
  pread_all(fd_, bytes.data(), bytes.size(), begin, path_);
  size_t pos = 0;
  const auto fields = take<uint32_t>(bytes, pos, path_);
  Example ex;
  for (uint32_t f = 0; f < fields; ++f) {
    const auto dtype = static_cast<DType>(take<uint8_t>(bytes, pos, path_));
    const auto rank = take<uint32_t>(bytes, pos, path_);
    STRATA_CHECK(rank <= 8 && static_cast<uint8_t>(dtype) <= static_cast<uint8_t>(DType::b8), "cache file ", path_,
                 ": record ", index, " is corrupt");
    std::vector<int64_t> sizes(rank);
    for (auto& s : sizes) s = take<int64_t>(bytes, pos, path_);
    const CheckedSize checked =
        checked_size(sizes, itemsize(dtype), "cache file " + path_ + ": record " + std::to_string(index));
    STRATA_CHECK(checked.bytes <= bytes.size() - pos, "cache file ", path_, ": record ", index, " is truncated");
    Tensor t = Tensor::empty(checked.shape, dtype);
    std::memcpy(t.raw_data(), bytes.data() + pos, t.nbytes());
    pos += t.nbytes();
    ex.push_back(std::move(t));
  }
  return ex;
}

}  // namespace strata::data::detail
