// IDX reading through zlib's gz* functions, which read gzip-compressed and plain files alike.
#include "strata/data/idx.hpp"

#include <zlib.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <vector>

#include "strata/core/checked_size.hpp"
#include "strata/core/error.hpp"

namespace strata::data {
namespace {

namespace fs = std::filesystem;

// Deflate never compresses better than about 1032:1, so a gzip file of n bytes holds at most
// this many times n bytes: a bound to check sizes against before allocating.
constexpr int64_t kMaxDeflateRatio = 1032;

struct IdxType {
  uint8_t code;
  int bytes;    // on disk
  DType dtype;  // in memory
};
constexpr IdxType kIdxTypes[] = {
    {0x08, 1, kUInt8}, {0x09, 1, kInt32}, {0x0B, 2, kInt32}, {0x0C, 4, kInt32}, {0x0D, 4, kFloat32}, {0x0E, 8, kFloat64},
};

std::string hex(unsigned v) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "0x%02X", v);
  return buf;
}

// One open gz stream; `where` prefixes every error with the function and the file.
class GzipReader {
 public:
  GzipReader(const std::string& path, const std::string& where) : where_(where) {
    std::error_code ec;  // error_code overloads: a filesystem error becomes our message, not its own
    STRATA_CHECK(fs::exists(path, ec), where_, "no such file");
    STRATA_CHECK(!fs::is_directory(path, ec), where_, "is a directory, expected a file");
    file_ = gzopen(path.c_str(), "rb");
    STRATA_CHECK(file_ != nullptr, where_, "cannot open: ", std::strerror(errno));
    gzbuffer(file_, 1 << 17);
  }
  ~GzipReader() { gzclose(file_); }
  GzipReader(const GzipReader&) = delete;
  GzipReader& operator=(const GzipReader&) = delete;

  // Reads up to n bytes; fewer only where the data ends.
  int64_t read(void* dst, int64_t n) {
    int64_t got = 0;
    auto* p = static_cast<char*>(dst);
    while (got < n) {
      const unsigned chunk = static_cast<unsigned>(std::min<int64_t>(n - got, 1 << 30));
      const int r = gzread(file_, p + got, chunk);
      if (r < 0) {
        int code = 0;
        const char* msg = gzerror(file_, &code);
        throw Error(where_ + "corrupt data (" + msg + ")");
      }
      if (r == 0) break;
      got += r;
    }
    return got;
  }
  bool compressed() { return !gzdirect(file_); }

 private:
  std::string where_;
  gzFile file_ = nullptr;
};

uint32_t big_endian_u32(const unsigned char* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | uint32_t{p[3]};
}

// Big-endian values of `bytes` bytes each, in place, to the host's order.
void to_host_order(void* data, int64_t n, int bytes) {
  if constexpr (std::endian::native == std::endian::big) return;
  auto swap_all = [&](auto* v, auto swap) {
    for (int64_t i = 0; i < n; ++i) v[i] = swap(v[i]);
  };
  switch (bytes) {
    case 2: swap_all(static_cast<uint16_t*>(data), [](uint16_t x) { return __builtin_bswap16(x); }); break;
    case 4: swap_all(static_cast<uint32_t*>(data), [](uint32_t x) { return __builtin_bswap32(x); }); break;
    case 8: swap_all(static_cast<uint64_t*>(data), [](uint64_t x) { return __builtin_bswap64(x); }); break;
    default: break;
  }
}

// Signed 8- and 16-bit big-endian data widened to int32.
void widen_to_int32(const unsigned char* src, int64_t n, int bytes, int32_t* dst) {
  for (int64_t i = 0; i < n; ++i) {
    dst[i] = bytes == 1 ? static_cast<int8_t>(src[i])
                        : static_cast<int16_t>(static_cast<uint16_t>((src[2 * i] << 8) | src[2 * i + 1]));
  }
}

}  // namespace

Tensor read_idx(const std::string& path) {
  const std::string file = "read_idx: '" + path + "'", where = file + ": ";
  GzipReader in(path, where);

  unsigned char magic[4];
  const int64_t got_magic = in.read(magic, 4);
  STRATA_CHECK(got_magic == 4, where, "truncated: expected a 4-byte magic number, the file has ", got_magic, " bytes");
  STRATA_CHECK(magic[0] == 0 && magic[1] == 0, where, "bad magic number: expected two zero bytes first, got ",
               hex(magic[0]), " ", hex(magic[1]), " (not an IDX file)");
  const IdxType* type = nullptr;
  for (const auto& t : kIdxTypes)
    if (t.code == magic[2]) type = &t;
  STRATA_CHECK(type != nullptr, where, "unknown type code ", hex(magic[2]),
               ": expected 0x08 (u8), 0x09 (i8), 0x0B (i16), 0x0C (i32), 0x0D (f32) or 0x0E (f64)");
  const int ndim = magic[3];
  STRATA_CHECK(ndim <= kMaxDims, where, "has ", ndim, " dimensions; tensors have at most ", kMaxDims);

  unsigned char dim_bytes[4 * kMaxDims];
  const int64_t got_dims = in.read(dim_bytes, 4 * ndim);
  STRATA_CHECK(got_dims == 4 * ndim, where, "truncated: expected ", ndim, " sizes of 4 bytes after the magic number");
  std::vector<int64_t> dims;
  for (int i = 0; i < ndim; ++i) dims.push_back(static_cast<int32_t>(big_endian_u32(dim_bytes + 4 * i)));
  // Checked at the in-memory element size, which is at least the on-disk one: both fit then.
  const CheckedSize checked = checked_size(dims, itemsize(type->dtype), file);
  const Shape& shape = checked.shape;
  const int64_t numel = checked.numel, data_bytes = numel * type->bytes;

  // Check the sizes against the file before allocating what they ask for.
  const int64_t header_bytes = 4 + 4 * ndim;
  std::error_code no_size;  // a pipe or device has none; its reads still find truncation
  const auto size = fs::file_size(path, no_size);
  const int64_t file_bytes = no_size ? std::numeric_limits<int64_t>::max() / 2 : static_cast<int64_t>(size);
  if (!in.compressed()) {
    STRATA_CHECK(file_bytes - header_bytes >= data_bytes, where, "truncated: sizes ", shape.str(), " need ",
                 data_bytes, " data bytes, the file has ", file_bytes - header_bytes);
  } else {
    STRATA_CHECK(data_bytes / kMaxDeflateRatio <= file_bytes, where, "sizes ", shape.str(), " need ", data_bytes,
                 " data bytes, more than a gzip file of ", file_bytes, " bytes can hold");
  }

  Tensor out = Tensor::empty(shape, type->dtype);
  const bool widen = itemsize(type->dtype) != static_cast<size_t>(type->bytes);
  std::vector<unsigned char> narrow(widen ? data_bytes : 0);
  void* dst = widen ? static_cast<void*>(narrow.data()) : out.raw_data();
  const int64_t got = in.read(dst, data_bytes);
  STRATA_CHECK(got == data_bytes, where, "truncated: sizes ", shape.str(), " need ", data_bytes,
               " data bytes, the file has ", got);
  char extra;
  STRATA_CHECK(in.read(&extra, 1) == 0, where, "has bytes after the ", data_bytes, " data bytes its sizes ",
               shape.str(), " describe");

  if (widen) widen_to_int32(narrow.data(), numel, type->bytes, out.data<int32_t>());
  else to_host_order(out.raw_data(), numel, type->bytes);
  return out;
}

namespace {

// dir/name.gz, else dir/name.
std::string find_idx_file(const fs::path& dir, const std::string& name) {
  for (const auto& candidate : {dir / (name + ".gz"), dir / name})
    if (std::error_code ec; fs::exists(candidate, ec)) return candidate.string();
  throw Error("load_fashion_mnist: no " + name + "(.gz) in '" + dir.string() + "'" +
              (dir == kFashionMnistDebianDir ? " (install Debian's dataset-fashion-mnist or pass the directory)" : ""));
}

// Loads one images/labels pair and checks they describe the same N 28x28 examples.
void load_split(const fs::path& dir, const std::string& prefix, Tensor& images, Tensor& labels) {
  const std::string images_path = find_idx_file(dir, prefix + "-images-idx3-ubyte");
  const std::string labels_path = find_idx_file(dir, prefix + "-labels-idx1-ubyte");
  images = read_idx(images_path);
  labels = read_idx(labels_path);
  const std::string where = "load_fashion_mnist: ";
  STRATA_CHECK(images.dtype() == kUInt8 && images.dim() == 3 && images.size(1) == 28 && images.size(2) == 28, where,
               "'", images_path, "': expected uint8 images [N, 28, 28], got ", dtype_name(images.dtype()), " ",
               images.shape().str());
  STRATA_CHECK(labels.dtype() == kUInt8 && labels.dim() == 1, where, "'", labels_path,
               "': expected uint8 labels [N], got ", dtype_name(labels.dtype()), " ", labels.shape().str());
  STRATA_CHECK(labels.size(0) == images.size(0), where, "'", labels_path, "' has ", labels.size(0), " labels but '",
               images_path, "' has ", images.size(0), " images");
  const uint8_t* l = labels.data<uint8_t>();
  const auto bad = std::find_if(l, l + labels.numel(), [](uint8_t v) { return v > 9; });
  STRATA_CHECK(bad == l + labels.numel(), where, "'", labels_path, "': label ", int{*bad}, " at index ",
               bad - l, " is outside 0..9");
}

}  // namespace

FashionMnist load_fashion_mnist(const std::string& dir) {
  const fs::path root = dir.empty() ? fs::path(kFashionMnistDebianDir) : fs::path(dir);
  FashionMnist ds;
  load_split(root, "train", ds.train_images, ds.train_labels);
  load_split(root, "t10k", ds.test_images, ds.test_labels);
  return ds;
}

}  // namespace strata::data
