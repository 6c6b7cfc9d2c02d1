#include "strata/data/npy.hpp"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <numeric>

#include "file_bytes.hpp"
#include "strata/ops/shape.hpp"

namespace strata::data {

namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicLen = 6;

struct Descr {
  DType dtype;
  bool big_endian;
};

Descr parse_descr(const std::string& d, const std::string& path) {
  STRATA_CHECK(d.size() == 3, "read_npy: ", path, ": unsupported dtype '", d, "'");
  const char order = d[0];
  const std::string kind = d.substr(1);
  DType t;
  if (kind == "f4") t = kFloat32;
  else if (kind == "f8") t = kFloat64;
  else if (kind == "i8") t = kInt64;
  else if (kind == "i4") t = kInt32;
  else if (kind == "u1") t = kUInt8;
  else if (kind == "b1") t = kBool;
  else
    throw Error("read_npy: " + path + ": unsupported dtype '" + d +
                "' (expected one of <f4, <f8, <i8, <i4, |u1, |b1)");
  STRATA_CHECK(order == '<' || order == '>' || order == '|' || order == '=', "read_npy: ", path,
               ": bad byte order in dtype '", d, "'");
  return {t, order == '>'};
}

// The text after `'key':` in the header dict, with leading spaces skipped.
size_t value_pos(const std::string& header, const std::string& key, const std::string& path) {
  size_t p = header.find("'" + key + "'");
  if (p == std::string::npos) p = header.find("\"" + key + "\"");
  STRATA_CHECK(p != std::string::npos, "read_npy: ", path, ": header has no '", key, "' key: ", header);
  p = header.find(':', p);
  STRATA_CHECK(p != std::string::npos, "read_npy: ", path, ": malformed header: ", header);
  p = header.find_first_not_of(' ', p + 1);
  STRATA_CHECK(p != std::string::npos, "read_npy: ", path, ": malformed header: ", header);
  return p;
}

struct Header {
  Descr descr;
  bool fortran_order;
  std::vector<int64_t> shape;
};

Header parse_header(const std::string& h, const std::string& path) {
  Header out{};
  size_t p = value_pos(h, "descr", path);
  const char quote = h[p];
  STRATA_CHECK(quote == '\'' || quote == '"', "read_npy: ", path, ": descr is not a string (structured dtypes are not supported)");
  const size_t end = h.find(quote, p + 1);
  STRATA_CHECK(end != std::string::npos, "read_npy: ", path, ": malformed header: ", h);
  out.descr = parse_descr(h.substr(p + 1, end - p - 1), path);

  p = value_pos(h, "fortran_order", path);
  if (h.compare(p, 4, "True") == 0) out.fortran_order = true;
  else if (h.compare(p, 5, "False") == 0) out.fortran_order = false;
  else throw Error("read_npy: " + path + ": fortran_order is neither True nor False: " + h);

  p = value_pos(h, "shape", path);
  STRATA_CHECK(h[p] == '(', "read_npy: ", path, ": shape is not a tuple: ", h);
  const size_t close = h.find(')', p);
  STRATA_CHECK(close != std::string::npos, "read_npy: ", path, ": malformed header: ", h);
  std::string dims = h.substr(p + 1, close - p - 1);
  size_t q = 0;
  while (q < dims.size()) {
    q = dims.find_first_not_of(" ,", q);
    if (q == std::string::npos) break;
    size_t r = dims.find_first_of(" ,", q);
    const std::string item = dims.substr(q, r == std::string::npos ? std::string::npos : r - q);
    STRATA_CHECK(!item.empty() && std::all_of(item.begin(), item.end(), ::isdigit), "read_npy: ", path,
                 ": bad size '", item, "' in shape");
    STRATA_CHECK(item.size() <= 15, "read_npy: ", path, ": size ", item, " is too large");
    out.shape.push_back(std::stoll(item));
    q = r;
  }
  STRATA_CHECK(out.shape.size() <= static_cast<size_t>(kMaxDims), "read_npy: ", path, ": ", out.shape.size(),
               " dimensions, at most ", kMaxDims, " are supported");
  return out;
}

}  // namespace

Tensor read_npy(const std::string& path) {
  const std::vector<unsigned char> bytes = detail::read_file_bytes(path, "read_npy");
  STRATA_CHECK(bytes.size() >= 10 && std::memcmp(bytes.data(), kMagic, kMagicLen) == 0, "read_npy: ", path,
               ": not a .npy file (expected the magic string \\x93NUMPY)");
  const int major = bytes[6];
  STRATA_CHECK(major >= 1 && major <= 3, "read_npy: ", path, ": unsupported format version ", major, ".",
               static_cast<int>(bytes[7]));
  size_t header_len, start;
  if (major == 1) {
    header_len = bytes[8] | (bytes[9] << 8);
    start = 10;
  } else {
    STRATA_CHECK(bytes.size() >= 12, "read_npy: ", path, ": truncated header");
    header_len = bytes[8] | (bytes[9] << 8) | (bytes[10] << 16) | (static_cast<size_t>(bytes[11]) << 24);
    start = 12;
  }
  STRATA_CHECK(start + header_len <= bytes.size(), "read_npy: ", path, ": truncated header (", header_len,
               " bytes announced, ", bytes.size() - start, " present)");
  const Header h = parse_header(std::string(bytes.begin() + start, bytes.begin() + start + header_len), path);

  // Fortran order is C order of the reversed shape, transposed back.
  std::vector<int64_t> stored = h.shape;
  if (h.fortran_order) std::reverse(stored.begin(), stored.end());
  Tensor t = Tensor::empty(Shape(stored), h.descr.dtype);
  const size_t data_start = start + header_len, have = bytes.size() - data_start;
  STRATA_CHECK(have == t.nbytes(), "read_npy: ", path, ": shape ", Shape(h.shape).str(), " of ",
               dtype_name(h.descr.dtype), " needs ", t.nbytes(), " data bytes, the file has ", have);
  std::memcpy(t.raw_data(), bytes.data() + data_start, t.nbytes());
  const size_t item = itemsize(h.descr.dtype);
  if (h.descr.big_endian && item > 1) {
    auto* p = static_cast<unsigned char*>(t.raw_data());
    for (int64_t i = 0; i < t.numel(); ++i) std::reverse(p + i * item, p + (i + 1) * item);
  }
  if (h.descr.dtype == kBool) {
    auto* p = static_cast<unsigned char*>(t.raw_data());
    for (int64_t i = 0; i < t.numel(); ++i) p[i] = p[i] != 0;  // any non-zero byte is true
  }
  if (h.fortran_order && t.dim() > 1) {
    std::vector<int64_t> order(t.dim());
    std::iota(order.rbegin(), order.rend(), 0);
    t = contiguous(permute(t, Shape(order)));
  }
  return t;
}

void write_npy(const std::string& path, const Tensor& tensor) {
  STRATA_CHECK(tensor.defined(), "write_npy: ", path, ": the tensor is undefined");
  const char* descr = nullptr;
  switch (tensor.dtype()) {
    case DType::f32: descr = "<f4"; break;
    case DType::f64: descr = "<f8"; break;
    case DType::i64: descr = "<i8"; break;
    case DType::i32: descr = "<i4"; break;
    case DType::u8: descr = "|u1"; break;
    case DType::b8: descr = "|b1"; break;
  }
  std::string shape = "(";
  for (int i = 0; i < tensor.dim(); ++i) shape += (i > 0 ? ", " : "") + std::to_string(tensor.size(i));
  shape += tensor.dim() == 1 ? ",)" : ")";  // Python's one-element tuple
  std::string header = std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
  // NumPy pads the header with spaces and a newline so the data starts at a multiple of 64.
  const size_t total = kMagicLen + 4 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  STRATA_CHECK(header.size() <= 65535, "write_npy: ", path, ": header too long for format 1.0");

  const Tensor data = contiguous(tensor);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  STRATA_CHECK(out.good(), "write_npy: cannot open ", path, " for writing");
  out.write(kMagic, kMagicLen);
  const unsigned char version_and_len[4] = {1, 0, static_cast<unsigned char>(header.size() & 0xff),
                                            static_cast<unsigned char>(header.size() >> 8)};
  out.write(reinterpret_cast<const char*>(version_and_len), 4);
  out.write(header.data(), header.size());
  out.write(static_cast<const char*>(data.raw_data()), data.nbytes());
  STRATA_CHECK(out.good(), "write_npy: error while writing ", path);
}

}  // namespace strata::data
