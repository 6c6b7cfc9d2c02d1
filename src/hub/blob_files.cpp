#include "blob_files.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <future>
#include <random>
#include <set>
#include <thread>
#include <vector>

#include "sha256.hpp"

namespace strata::hub::detail {
namespace {

Error system_error(const std::string& what, const std::string& path) {
  if (errno == ENOMEM)
    return OutOfMemoryError("hub: " + what + " " + path + ": out of memory (" + std::strerror(errno) +
                            "): the machine's memory or this process's limit (ulimit -v, a cgroup) is exhausted");
  return Error("hub: " + what + " " + path + ": " + std::strerror(errno));
}

constexpr std::string_view kHexDigits = "0123456789abcdef";
constexpr size_t kNameDigits = 32;
constexpr std::string_view kSuffix = ".safetensors";

// 128 random bits: names never collide, so two processes saving the same weights at once each
// write their own file and the one whose row loses the race removes its own.
std::string random_file_name() {
  std::random_device rd;
  std::string name;
  for (size_t i = 0; i < kNameDigits / 8; ++i)
    for (uint32_t v = rd(), k = 0; k < 8; ++k, v >>= 4) name += kHexDigits[v & 15];
  return name + std::string(kSuffix);
}

// Test hook (tests/reliability/hub_sweep_race.cpp): STRATA_TEST_BLOB_LOCK_DELAY_MS sleeps
// between creating a blob file and locking it, widening the moment in which a sweep can find
// it unlocked, so that the test hits it on every run rather than once in thousands of saves.
void test_delay_before_lock() {
  if (const char* ms = std::getenv("STRATA_TEST_BLOB_LOCK_DELAY_MS"))
    std::this_thread::sleep_for(std::chrono::milliseconds(std::atoi(ms)));
}

void write_all(int fd, const char* p, size_t n, const std::string& path) {
  while (n > 0) {
    const ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) throw system_error("cannot write the blob file", path);
    p += w;
    n -= static_cast<size_t>(w);
  }
}

// fsync of a folder makes the names created in it survive a crash.
void sync_folder(const std::string& folder) {
  const int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) throw system_error("cannot open the blob folder", folder);
  const int rc = ::fsync(fd);
  ::close(fd);
  if (rc != 0) throw system_error("cannot sync the blob folder", folder);
}

// Closes the descriptor however the scope ends (a sweep's query may throw while it holds a
// lock that a writer is waiting for).
class FileDescriptor {
 public:
  explicit FileDescriptor(int fd) : fd_(fd) {}
  ~FileDescriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  operator int() const { return fd_; }

 private:
  int fd_;
};

class MappedFile {
 public:
  // `populate`: fault every page in now (the file must be that long already).
  MappedFile(int fd, size_t size, const std::string& path, bool populate = true) : size_(size) {
    if (size_ == 0) return;
    void* p = ::mmap(nullptr, size_, PROT_READ, MAP_SHARED | (populate ? MAP_POPULATE : 0), fd, 0);
    if (p == MAP_FAILED) throw system_error("cannot map the blob file", path);
    data_ = static_cast<const char*>(p);
  }
  ~MappedFile() {
    if (data_) ::munmap(const_cast<char*>(data_), size_);
  }
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  const char* data() const { return data_; }

 private:
  const char* data_ = nullptr;
  size_t size_;
};

// The SHA-256 of a file being written, computed on another thread as the bytes land: the
// writer publishes how far it got; a negative value means it gave up.
class ChasingSha256 {
 public:
  ChasingSha256(const char* data, int64_t size)
      : result_(std::async(std::launch::async, [this, data, size] { return run(data, size); })) {}
  ~ChasingSha256() { publish(-1); }  // a writer that threw: stop the thread (the future waits)
  void publish(int64_t written) {
    published_.store(written, std::memory_order_release);
    published_.notify_all();
  }
  std::string hex() { return result_.get(); }

 private:
  std::string run(const char* data, int64_t size) {
    Sha256 sha;
    for (int64_t hashed = 0; hashed < size;) {
      const int64_t upto = published_.load(std::memory_order_acquire);
      if (upto < 0) return "";
      if (upto == hashed) {
        published_.wait(upto, std::memory_order_acquire);
        continue;
      }
      sha.update(data + hashed, static_cast<size_t>(upto - hashed));
      hashed = upto;
    }
    return sha.hex();
  }

  std::atomic<int64_t> published_{0};
  std::future<std::string> result_;  // last: the thread starts once published_ exists
};

// The hex SHA-256 of block k of a blob of `size` bytes in blocks of `block_bytes` (the last one
// may be shorter): what a save records and a load checks.
std::string block_digest(const char* data, int64_t size, int64_t block_bytes, int64_t k) {
  const int64_t begin = k * block_bytes;
  return sha256_hex(data + begin, static_cast<size_t>(std::min(block_bytes, size - begin)));
}

// Runs fn(block) for every block, on up to three helper threads and then on the caller once
// `caller_work` (run first, on the caller) is done: hashing is the slow part of a load or a
// save, and blocks hash independently.
void for_each_block(int64_t blocks, const std::function<void(int64_t)>& fn, const std::function<void()>& caller_work) {
  std::atomic<int64_t> next{0};
  const auto drain = [&] {
    for (int64_t k; (k = next.fetch_add(1)) < blocks;) fn(k);
  };
  const int64_t helpers =
      std::clamp<int64_t>(static_cast<int64_t>(std::thread::hardware_concurrency()) - 1, 1, 3);
  std::vector<std::future<void>> running;
  for (int64_t i = 0; i < std::min(helpers, blocks); ++i) running.push_back(std::async(std::launch::async, drain));
  std::exception_ptr failed;
  try {
    caller_work();
    drain();
  } catch (...) {
    failed = std::current_exception();
    next = blocks;  // the helpers stop after their current block
  }
  for (auto& f : running) f.get();
  if (failed) std::rethrow_exception(failed);
}

}  // namespace

std::unique_ptr<StagedBlobFile> StagedBlobFile::create(const std::string& folder) {
  // Between open and flock another process's sweep may find the file unlocked and unreferenced
  // and remove it (it removes only while holding the lock, so never after ours is taken). A
  // file still linked once locked is ours; one that was removed meanwhile is given up and
  // another made. Each retry needs a sweep to land in that moment: 100 in a row do not happen.
  constexpr int kAttempts = 100;
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    const std::string path = folder + "/" + random_file_name();
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) throw system_error("cannot create the blob file", path);
    test_delay_before_lock();
    struct stat st {};
    if (::flock(fd, LOCK_EX) != 0 || ::fstat(fd, &st) != 0) {
      const Error e = system_error("cannot lock the blob file", path);
      ::unlink(path.c_str());
      ::close(fd);
      throw e;
    }
    if (st.st_nlink > 0) return std::unique_ptr<StagedBlobFile>(new StagedBlobFile(path, fd));
    ::close(fd);  // swept before we locked it
  }
  throw Error("hub: every new blob file in " + folder + " was removed by other processes opening the hub before it " +
              "could be locked (" + std::to_string(kAttempts) + " attempts)");
}

StagedBlobFile::~StagedBlobFile() {
  if (!recorded) ::unlink(path_.c_str());
  ::close(fd_);  // releases the lock
}

std::string StagedBlobFile::name() const { return path_.substr(path_.rfind('/') + 1); }

std::string BlobFiles::folder_for(const std::string& sqlite_path) {
  if (sqlite_path.empty() || sqlite_path == ":memory:" || sqlite_path.rfind("file:", 0) == 0) return "";
  return sqlite_path + "-blobs";
}

std::unique_ptr<StagedBlobFile> BlobFiles::stage(const io::NamedTensors& weights, int64_t block_bytes,
                                                 const std::function<void(int64_t)>& on_block) const {
  if (::mkdir(folder_.c_str(), 0755) == 0) {
    sync_folder(std::filesystem::path(folder_).parent_path().empty()
                    ? "."
                    : std::filesystem::path(folder_).parent_path().string());
  } else if (errno != EEXIST) {
    throw system_error("cannot create the blob folder", folder_);
  }
  auto staged = StagedBlobFile::create(folder_);
  staged->block_bytes = block_bytes;
  const std::string& path = staged->path();
  const int fd = staged->fd();

  // Into the page cache at cp's speed, in slices, while another thread hashes what has landed:
  // the whole file's SHA-256 (the address) is one sequential pass, the longest part of a save.
  // (Starting writeback early with sync_file_range made these writes wait on the disk: 8x
  // slower, measured.)
  const int64_t total = static_cast<int64_t>(io::safetensors_size(weights, {}));
  const MappedFile map(fd, static_cast<size_t>(total), path, /*populate=*/false);
  ChasingSha256 whole(map.data(), total);
  constexpr size_t kSlice = size_t{4} << 20;
  int64_t written = 0, blocks_done = 0;
  io::write_safetensors(weights, {}, [&](const char* p, size_t n) {
    for (size_t off = 0; off < n; off += kSlice) {
      const size_t len = std::min(kSlice, n - off);
      STRATA_CHECK(written + static_cast<int64_t>(len) <= total, "hub: the weights changed while being saved (more than ",
                   std::to_string(total), " bytes)");
      write_all(fd, p + off, len, path);
      written += static_cast<int64_t>(len);
      whole.publish(written);
      for (; (blocks_done + 1) * block_bytes <= written; ++blocks_done)
        if (on_block) on_block(blocks_done);
    }
  });
  STRATA_CHECK(written == total, "hub: the weights changed while being saved (", std::to_string(written),
               " bytes, expected ", std::to_string(total), ")");
  if (written > blocks_done * block_bytes) {
    if (on_block) on_block(blocks_done);
    ++blocks_done;
  }
  staged->id.size = written;

  // The blocks' digests from the page cache while the disk catches up: on the helper threads,
  // and on this one once fdatasync returns.
  std::vector<std::string> digests(static_cast<size_t>(blocks_done));
  for_each_block(
      blocks_done,
      [&](int64_t k) { digests[static_cast<size_t>(k)] = block_digest(map.data(), written, block_bytes, k); },
      [&] {
        if (::fdatasync(fd) != 0) throw system_error("cannot sync the blob file", path);
      });
  staged->id.sha256 = whole.hex();
  for (const auto& d : digests) staged->block_sha256 += d;
  sync_folder(folder_);
  return staged;
}

io::NamedTensors BlobFiles::read(const BlobFileRef& file, const BlobId& id, const std::string& what) const {
  const auto corrupt = [&](const std::string& why) {
    return Error("hub: " + what + ": the blob " + id.sha256 + " is corrupted: " + why);
  };
  check_name(file.name, id.sha256);
  const std::string path = folder_ + "/" + file.name;
  const FileDescriptor fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
  if (fd < 0 && errno == ENOENT)
    throw Error("hub: " + what + ": its blob file " + path + " is gone (deleted while loading?)");
  if (fd < 0) throw system_error("cannot open the blob file of " + what + ",", path);
  struct stat st {};
  if (::fstat(fd, &st) != 0) throw system_error("cannot stat the blob file", path);
  if (st.st_size != id.size)
    throw corrupt("the file " + path + " holds " + std::to_string(st.st_size) + " bytes, " + std::to_string(id.size) +
                  " recorded");
  // (Written so that no block_bytes read from the database can overflow.)
  const int64_t blocks = file.block_bytes <= 0 ? -1 : id.size == 0 ? 0 : (id.size - 1) / file.block_bytes + 1;
  if (blocks < 0 || file.block_sha256.size() != static_cast<size_t>(blocks) * kDigestHex)
    throw corrupt("its recorded block digests do not fit its size");

  const MappedFile map(fd, static_cast<size_t>(id.size), path);
  io::SafetensorsDecoder decoder(what, static_cast<uint64_t>(id.size));
  std::atomic<int64_t> first_bad{blocks};
  std::string decode_error;
  for_each_block(
      blocks,
      [&](int64_t k) {
        const std::string d = block_digest(map.data(), id.size, file.block_bytes, k);
        if (file.block_sha256.compare(static_cast<size_t>(k) * kDigestHex, kDigestHex, d) != 0) {
          int64_t seen = first_bad.load();
          while (k < seen && !first_bad.compare_exchange_weak(seen, k)) {
          }
        }
      },
      [&] {
        try {
          decoder.feed(map.data(), static_cast<size_t>(id.size));
        } catch (const Error& e) {
          decode_error = e.what();
        }
      });
  // A bad digest explains a decoding error too, so it is reported first.
  if (first_bad < blocks)
    throw corrupt("block " + std::to_string(first_bad.load()) + " of " + path + " does not match its SHA-256");
  if (!decode_error.empty()) throw corrupt(decode_error);
  try {
    return decoder.finish().tensors;
  } catch (const Error& e) {
    throw corrupt(e.what());
  }
}

void BlobFiles::remove(const std::string& name) const noexcept { ::unlink((folder_ + "/" + name).c_str()); }

void BlobFiles::check_name(const std::string& name, const std::string& sha256) {
  const bool ok = name.size() == kNameDigits + kSuffix.size() && name.ends_with(kSuffix) &&
                  name.find_first_not_of(kHexDigits) == kNameDigits;
  STRATA_CHECK(ok, "hub: the blobs row of ", sha256, " names the file \"", name, "\", expected ",
               std::to_string(kNameDigits), " hex digits and \"", std::string(kSuffix),
               "\" (a name inside the blob folder, as the hub writes them): the database was changed by other means");
}

void BlobFiles::sweep(Database& db) const {
  std::error_code ec;
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(folder_, ec))
    if (entry.is_regular_file(ec)) names.push_back(entry.path().filename().string());
  if (names.empty()) return;
  std::set<std::string> referenced;
  db.query("SELECT file FROM blobs WHERE file IS NOT NULL", {}, [&](const Row& r) { referenced.insert(r.text(0)); });
  for (const auto& name : names) {
    if (referenced.count(name)) continue;
    const std::string path = folder_ + "/" + name;
    const FileDescriptor fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (fd < 0) continue;
    // Locked: a save still writing it. Unlocked: its writer is done, and may have committed
    // since the query above, so ask again before removing. Removed only while we hold the
    // lock, which is what StagedBlobFile::create relies on.
    if (::flock(fd, LOCK_EX | LOCK_NB) == 0 && !db.query_int("SELECT 1 FROM blobs WHERE file = ?", {name}))
      ::unlink(path.c_str());
  }
}

}  // namespace strata::hub::detail
