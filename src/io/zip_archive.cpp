// ZIP reading and writing (APPNOTE 6.3): only what .npz needs; no encryption, no multi-disk.
#include "zip_archive.hpp"

#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <limits>

#include "strata/core/error.hpp"
#include "strata/core/limits.hpp"

namespace strata::io::detail {
namespace {

constexpr uint32_t kLocalSig = 0x04034b50, kCentralSig = 0x02014b50, kEndSig = 0x06054b50;
constexpr uint32_t kZip64EndSig = 0x06064b50, kZip64LocatorSig = 0x07064b50;
constexpr size_t kLocalSize = 30, kCentralSize = 46, kEndSize = 22, kZip64LocatorSize = 20, kZip64EndSize = 56;
constexpr uint32_t k32 = 0xffffffff;
// Deflate cannot expand data more than about 1032 to 1; a larger declared size is a lie.
constexpr uint64_t kMaxDeflateRatio = 1032;

uint64_t le(const std::string& b, size_t at, int n) {
  uint64_t v = 0;
  for (int i = n - 1; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(b[at + i]);
  return v;
}

void put(std::string& out, uint64_t v, int n) {
  for (int i = 0; i < n; ++i) out += static_cast<char>((v >> (8 * i)) & 0xff);
}

uint32_t crc_of(const std::string& bytes) {
  uLong crc = crc32(0L, Z_NULL, 0);
  for (size_t done = 0; done < bytes.size();) {  // zlib takes uInt lengths
    const uInt n = static_cast<uInt>(std::min<size_t>(bytes.size() - done, 1u << 30));
    crc = crc32(crc, reinterpret_cast<const Bytef*>(bytes.data() + done), n);
    done += n;
  }
  return static_cast<uint32_t>(crc);
}

}  // namespace

ZipReader::ZipReader(const std::string& path) : path_(path), file_(path, std::ios::binary | std::ios::ate) {
  STRATA_CHECK(file_.good(), path, ": cannot open the file");
  file_size_ = static_cast<uint64_t>(file_.tellg());
  STRATA_CHECK(file_size_ >= kEndSize, path, ": not a ZIP/.npz archive (", file_size_,
               " bytes, too short for one)");

  // The end record sits in the last 22 bytes plus a comment of at most 64 KiB.
  const uint64_t tail_size = std::min<uint64_t>(file_size_, kEndSize + 0xffff);
  const std::string tail = read_at(file_size_ - tail_size, tail_size, "end of archive");
  size_t end = std::string::npos;
  for (size_t i = tail.size() - kEndSize + 1; i-- > 0;)
    if (le(tail, i, 4) == kEndSig) {
      end = i;
      break;
    }
  STRATA_CHECK(end != std::string::npos, path, ": not a ZIP/.npz archive, or truncated (no end-of-central-directory record)");
  uint64_t count = le(tail, end + 10, 2), dir_size = le(tail, end + 12, 4), dir_offset = le(tail, end + 16, 4);
  const uint64_t end_offset = file_size_ - tail_size + end;
  STRATA_CHECK(le(tail, end + 4, 2) == 0 && le(tail, end + 6, 2) == 0, path, ": multi-disk ZIP archives are not supported");

  if ((count == 0xffff || dir_size == k32 || dir_offset == k32) && end_offset >= kZip64LocatorSize) {
    const std::string loc = read_at(end_offset - kZip64LocatorSize, kZip64LocatorSize, "zip64 locator");
    if (le(loc, 0, 4) == kZip64LocatorSig) {
      const uint64_t at = le(loc, 8, 8);
      STRATA_CHECK(at <= file_size_ - kZip64EndSize, path, ": zip64 end record at ", at, " lies past the end of the file");
      const std::string z = read_at(at, kZip64EndSize, "zip64 end record");
      STRATA_CHECK(le(z, 0, 4) == kZip64EndSig, path, ": bad zip64 end-of-central-directory record");
      count = le(z, 32, 8);
      dir_size = le(z, 40, 8);
      dir_offset = le(z, 48, 8);
    }
  }
  STRATA_CHECK(dir_offset <= file_size_ && dir_size <= file_size_ - dir_offset, path, ": central directory (",
               dir_size, " bytes at ", dir_offset, ") lies past the end of the ", file_size_, "-byte file (truncated?)");
  STRATA_CHECK(count <= dir_size / kCentralSize, path, ": ", count, " entries cannot fit in a ", dir_size,
               "-byte central directory");

  const std::string dir = read_at(dir_offset, dir_size, "central directory");
  size_t p = 0;
  for (uint64_t i = 0; i < count; ++i) {
    STRATA_CHECK(p + kCentralSize <= dir.size() && le(dir, p, 4) == kCentralSig, path, ": bad central directory entry ", i);
    Entry e;
    const uint64_t flags = le(dir, p + 8, 2);
    e.method = static_cast<uint16_t>(le(dir, p + 10, 2));
    e.crc = static_cast<uint32_t>(le(dir, p + 16, 4));
    e.compressed_size = le(dir, p + 20, 4);
    e.size = le(dir, p + 24, 4);
    const size_t name_len = le(dir, p + 28, 2), extra_len = le(dir, p + 30, 2), comment_len = le(dir, p + 32, 2);
    e.local_offset = le(dir, p + 42, 4);
    STRATA_CHECK(p + kCentralSize + name_len + extra_len + comment_len <= dir.size(), path,
                 ": central directory entry ", i, " runs past the directory");
    e.name = dir.substr(p + kCentralSize, name_len);
    // zip64 extra field: the 64-bit values of whichever fields hold 0xffffffff, in this order.
    for (size_t x = p + kCentralSize + name_len, x_end = x + extra_len; x + 4 <= x_end;) {
      const uint64_t id = le(dir, x, 2), len = le(dir, x + 2, 2);
      STRATA_CHECK(x + 4 + len <= x_end, path, ": entry '", e.name, "' has a malformed extra field");
      if (id == 1) {
        size_t q = x + 4;
        for (uint64_t* field : {&e.size, &e.compressed_size, &e.local_offset})
          if (*field == k32) {
            STRATA_CHECK(q + 8 <= x + 4 + len, path, ": entry '", e.name, "' has a short zip64 extra field");
            *field = le(dir, q, 8);
            q += 8;
          }
      }
      x += 4 + len;
    }
    STRATA_CHECK((flags & 1) == 0, path, ": entry '", e.name, "' is encrypted");
    STRATA_CHECK(e.method == 0 || e.method == 8, path, ": entry '", e.name, "' uses compression method ", e.method,
                 " (expected 0 stored or 8 deflate)");
    STRATA_CHECK(e.local_offset <= file_size_ && e.compressed_size <= file_size_ - e.local_offset, path, ": entry '",
                 e.name, "' (", e.compressed_size, " bytes at ", e.local_offset, ") lies past the end of the ",
                 file_size_, "-byte file (truncated?)");
    const uint64_t max_size = e.method == 0 ? e.compressed_size : e.compressed_size * kMaxDeflateRatio + 64;
    STRATA_CHECK(e.size <= max_size, path, ": entry '", e.name, "' declares ", e.size, " bytes from ",
                 e.compressed_size, " stored bytes, more than ", e.method == 0 ? "storing" : "deflate", " can give");
    // An entry is read whole and holds one array: bounded like one before it is inflated.
    check_limit(path + ": entry '" + e.name + "'", "uncompressed bytes", e.size, "max_tensor_bytes",
                limits().max_tensor_bytes);
    entries_.push_back(std::move(e));
    p += kCentralSize + name_len + extra_len + comment_len;
  }
}

std::string ZipReader::read_at(uint64_t offset, uint64_t n, const char* what) {
  // Callers check offset + n against file_size_ first; this guards the rest.
  STRATA_CHECK(offset <= file_size_ && n <= file_size_ - offset, path_, ": ", what, " lies past the end of the file");
  std::string out(n, '\0');
  file_.clear();
  file_.seekg(static_cast<std::streamoff>(offset));
  file_.read(out.data(), static_cast<std::streamsize>(n));
  STRATA_CHECK(file_.gcount() == static_cast<std::streamsize>(n), path_, ": cannot read ", what, " (", n,
               " bytes at ", offset, ")");
  return out;
}

std::string ZipReader::read(const Entry& e) {
  const std::string local = read_at(e.local_offset, std::min<uint64_t>(kLocalSize, file_size_ - e.local_offset),
                                    "local header");
  STRATA_CHECK(local.size() == kLocalSize && le(local, 0, 4) == kLocalSig, path_, ": entry '", e.name,
               "' has no local header at offset ", e.local_offset);
  const uint64_t data_at = e.local_offset + kLocalSize + le(local, 26, 2) + le(local, 28, 2);
  STRATA_CHECK(data_at <= file_size_ && e.compressed_size <= file_size_ - data_at, path_, ": entry '", e.name,
               "' data (", e.compressed_size, " bytes at ", data_at, ") lies past the end of the file (truncated?)");
  std::string raw = read_at(data_at, e.compressed_size, "entry data");
  std::string out;
  if (e.method == 0) {
    out = std::move(raw);
  } else {
    out.assign(e.size, '\0');
    z_stream z{};
    STRATA_CHECK(inflateInit2(&z, -MAX_WBITS) == Z_OK, path_, ": zlib could not start inflating '", e.name, "'");
    z.next_in = reinterpret_cast<Bytef*>(raw.data());
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    int rc = Z_OK;
    uint64_t in_left = raw.size(), out_left = out.size();
    while (rc == Z_OK) {
      const uInt in_n = static_cast<uInt>(std::min<uint64_t>(in_left, 1u << 30));
      const uInt out_n = static_cast<uInt>(std::min<uint64_t>(out_left, 1u << 30));
      z.avail_in = in_n;
      z.avail_out = out_n;
      rc = inflate(&z, Z_NO_FLUSH);
      in_left -= in_n - z.avail_in;
      out_left -= out_n - z.avail_out;
      if (rc == Z_OK && in_n == z.avail_in && out_n == z.avail_out) break;  // no progress
    }
    inflateEnd(&z);
    STRATA_CHECK(rc == Z_STREAM_END && out_left == 0, path_, ": entry '", e.name,
                 "' is corrupt (its deflate stream does not decode to the declared ", e.size, " bytes)");
  }
  const uint32_t crc = crc_of(out);
  STRATA_CHECK(crc == e.crc, path_, ": entry '", e.name, "' fails its CRC-32 check (stored ", e.crc, ", computed ", crc,
               "): the file is corrupt");
  return out;
}

ZipWriter::ZipWriter(const std::string& path) : path_(path), file_(path) {}

void ZipWriter::add(const std::string& name, const std::string& bytes, bool compress) {
  std::string data;
  if (compress) {
    z_stream z{};
    STRATA_CHECK(deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY) == Z_OK, path_,
                 ": zlib could not start deflating '", name, "'");
    data.resize(deflateBound(&z, bytes.size()));
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
    z.next_out = reinterpret_cast<Bytef*>(data.data());
    uint64_t in_left = bytes.size();
    int rc = Z_OK;
    while (rc == Z_OK) {
      const uInt in_n = static_cast<uInt>(std::min<uint64_t>(in_left, 1u << 30));
      z.avail_in = in_n;
      z.avail_out = static_cast<uInt>(std::min<uint64_t>(data.size() - z.total_out, 1u << 30));
      rc = deflate(&z, in_left == in_n ? Z_FINISH : Z_NO_FLUSH);
      in_left -= in_n - z.avail_in;
    }
    data.resize(z.total_out);
    deflateEnd(&z);
    STRATA_CHECK(rc == Z_STREAM_END, path_, ": zlib failed to deflate '", name, "'");
  }
  const std::string& payload = compress ? data : bytes;
  // Without zip64 records sizes and offsets stop at 4 GiB.
  STRATA_CHECK(bytes.size() < k32 && payload.size() < k32 && offset_ < k32, path_, ": entry '", name,
               "' would pass 4 GiB; .npz files over 4 GiB are not supported yet");
  const uint32_t crc = crc_of(bytes);
  auto common = [&](std::string& h) {
    put(h, 20, 2);                   // version needed: 2.0
    put(h, 0, 2);                    // flags
    put(h, compress ? 8 : 0, 2);      // method
    put(h, 0, 2);                    // time 00:00
    put(h, (0 << 9) | (1 << 5) | 1, 2);  // date 1980-01-01: files are reproducible
    put(h, crc, 4);
    put(h, payload.size(), 4);
    put(h, bytes.size(), 4);
    put(h, name.size(), 2);
    put(h, 0, 2);  // extra
  };
  std::string local;
  put(local, kLocalSig, 4);
  common(local);
  local += name;
  put(directory_, kCentralSig, 4);
  put(directory_, 20, 2);  // made by
  common(directory_);
  put(directory_, 0, 2);  // comment
  put(directory_, 0, 2);  // disk
  put(directory_, 0, 2);  // internal attributes
  put(directory_, 0, 4);  // external attributes
  put(directory_, offset_, 4);
  directory_ += name;
  file_.write(local.data(), local.size());
  file_.write(payload.data(), payload.size());
  offset_ += local.size() + payload.size();
  ++count_;
}

void ZipWriter::finish() {
  STRATA_CHECK(count_ < 0xffff && offset_ + directory_.size() < k32, path_, ": too many entries or bytes for a ZIP without zip64");
  std::string end;
  put(end, kEndSig, 4);
  put(end, 0, 4);  // disks
  put(end, count_, 2);
  put(end, count_, 2);
  put(end, directory_.size(), 4);
  put(end, offset_, 4);
  put(end, 0, 2);  // comment
  file_.write(directory_.data(), directory_.size());
  file_.write(end.data(), end.size());
  file_.commit();
}

}  // namespace strata::io::detail
