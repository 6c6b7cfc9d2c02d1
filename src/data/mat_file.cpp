// Level-5 MAT-file reading. Every data element is a tag (type, byte count) and its bytes, padded
// to 8 bytes; a top-level element may be miCOMPRESSED, a zlib stream holding one element. All
// reads go through Cursor, which checks each count against the bytes present.
#include "strata/data/mat_file.hpp"

#include <zlib.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "file_bytes.hpp"
#include "strata/core/checked_size.hpp"
#include "strata/core/error.hpp"
#include "strata/core/limits.hpp"

namespace strata::data {
namespace {

using Bytes = std::span<const unsigned char>;

// Data types (miXXX) and array classes (mxXXX) of the MathWorks document.
enum : uint32_t {
  miINT8 = 1,
  miUINT8 = 2,
  miINT16 = 3,
  miUINT16 = 4,
  miINT32 = 5,
  miUINT32 = 6,
  miSINGLE = 7,
  miDOUBLE = 9,
  miINT64 = 12,
  miUINT64 = 13,
  miMATRIX = 14,
  miCOMPRESSED = 15,
  miUTF8 = 16,
  miUTF16 = 17,
  miUTF32 = 18,
};
enum : uint32_t {
  mxCELL = 1,
  mxSTRUCT = 2,
  mxOBJECT = 3,
  mxCHAR = 4,
  mxSPARSE = 5,
  mxDOUBLE = 6,
  mxSINGLE = 7,
  mxINT8 = 8,
  mxUINT8 = 9,
  mxINT16 = 10,
  mxUINT16 = 11,
  mxINT32 = 12,
  mxUINT32 = 13,
  mxINT64 = 14,
  mxUINT64 = 15,
};
constexpr uint32_t kComplexFlag = 0x08, kLogicalFlag = 0x02;  // in the array flags' second byte

const char* class_name_of(uint32_t cls) {
  static const char* const names[] = {"",     "cell",  "struct", "object", "char",  "sparse", "double", "single",
                                      "int8", "uint8", "int16",  "uint16", "int32", "uint32", "int64",  "uint64"};
  return cls < std::size(names) ? names[cls] : "unknown";
}

template <class T>
T load(const unsigned char* p, bool swap) {
  unsigned char b[sizeof(T)];
  std::memcpy(b, p, sizeof(T));
  if (swap) std::reverse(b, b + sizeof(T));
  T v;
  std::memcpy(&v, b, sizeof(T));
  return v;
}

struct Element {
  uint32_t type = 0;
  Bytes data;
};

class Cursor {
 public:
  Cursor(Bytes bytes, bool swap, const std::string& name) : bytes_(bytes), swap_(swap), name_(name) {}
  bool done() const { return pos_ >= bytes_.size(); }

  Element next(const char* what) {
    const size_t left = bytes_.size() - pos_;
    STRATA_CHECK(left >= 8, "MAT-file ", name_, ": ", what, ": a data element tag needs 8 bytes, ", left, " are left");
    const unsigned char* p = bytes_.data() + pos_;
    const uint32_t first = load<uint32_t>(p, swap_);
    Element e;
    if ((first >> 16) != 0) {  // small data element: type and count in one word, data in the next
      e.type = first & 0xFFFF;
      const uint32_t n = first >> 16;
      STRATA_CHECK(n <= 4, "MAT-file ", name_, ": ", what,
                   ": a small data element holds at most 4 bytes, its tag says ", n);
      e.data = bytes_.subspan(pos_ + 4, n);
      pos_ += 8;
      return e;
    }
    e.type = first;
    const uint64_t n = load<uint32_t>(p + 4, swap_);
    STRATA_CHECK(n <= left - 8, "MAT-file ", name_, ": ", what, ": the data element claims ", n, " bytes, ", left - 8,
                 " are left");
    e.data = bytes_.subspan(pos_ + 8, n);
    // Elements are padded to 8 bytes, except compressed ones; a missing last pad is tolerated.
    const uint64_t padded = e.type == miCOMPRESSED ? n : (n + 7) / 8 * 8;
    pos_ = std::min<uint64_t>(bytes_.size(), pos_ + 8 + padded);
    return e;
  }
  bool swap() const { return swap_; }

 private:
  Bytes bytes_;
  size_t pos_ = 0;
  bool swap_;
  const std::string& name_;
};

size_t mi_size(uint32_t type) {
  switch (type) {
    case miINT8:
    case miUINT8:
    case miUTF8:
      return 1;
    case miINT16:
    case miUINT16:
    case miUTF16:
      return 2;
    case miINT32:
    case miUINT32:
    case miSINGLE:
    case miUTF32:
      return 4;
    case miDOUBLE:
    case miINT64:
    case miUINT64:
      return 8;
    default:
      return 0;
  }
}

// Element i of a numeric data element, as the widest type of its kind.
template <class V>
V mi_value(const unsigned char* p, uint32_t type, bool swap) {
  switch (type) {
    case miINT8:
      return static_cast<V>(static_cast<int8_t>(*p));
    case miUINT8:
      return static_cast<V>(*p);
    case miINT16:
      return static_cast<V>(load<int16_t>(p, swap));
    case miUINT16:
      return static_cast<V>(load<uint16_t>(p, swap));
    case miINT32:
      return static_cast<V>(load<int32_t>(p, swap));
    case miUINT32:
      return static_cast<V>(load<uint32_t>(p, swap));
    case miINT64:
      return static_cast<V>(load<int64_t>(p, swap));
    case miSINGLE:
      return static_cast<V>(load<float>(p, swap));
    case miDOUBLE:
      return static_cast<V>(load<double>(p, swap));
    default:
      return static_cast<V>(load<uint64_t>(p, swap));  // miUINT64; callers check the range
  }
}

template <class Dst>
void convert(Dst* out, const Element& e, int64_t n, bool swap, const std::string& what) {
  const size_t step = mi_size(e.type);
  const bool float_source = e.type == miSINGLE || e.type == miDOUBLE;
  for (int64_t i = 0; i < n; ++i) {
    const unsigned char* p = e.data.data() + i * step;
    if constexpr (std::is_same_v<Dst, bool>) {
      out[i] = float_source ? mi_value<double>(p, e.type, swap) != 0 : mi_value<int64_t>(p, e.type, swap) != 0;
    } else if constexpr (std::is_floating_point_v<Dst>) {
      out[i] = e.type == miUINT64 ? static_cast<Dst>(load<uint64_t>(p, swap)) : mi_value<Dst>(p, e.type, swap);
    } else if (float_source) {  // an integer class stored as floats: only whole numbers in range
      const double v = mi_value<double>(p, e.type, swap);
      STRATA_CHECK(std::isfinite(v) && v == std::floor(v) && v >= double(std::numeric_limits<Dst>::min()) &&
                       v <= double(std::numeric_limits<Dst>::max()),
                   what, ": value ", v, " does not fit its integer class");
      out[i] = static_cast<Dst>(v);
    } else {
      STRATA_CHECK(e.type != miUINT64 || load<uint64_t>(p, swap) <= uint64_t(std::numeric_limits<int64_t>::max()), what,
                   ": a uint64 value above 2^63 - 1 does not fit int64");
      const int64_t v = mi_value<int64_t>(p, e.type, swap);
      STRATA_CHECK(v >= std::numeric_limits<Dst>::min() && v <= std::numeric_limits<Dst>::max(), what, ": value ", v,
                   " does not fit its class");
      out[i] = static_cast<Dst>(v);
    }
  }
}

DType dtype_of_class(uint32_t cls, bool logical) {
  if (logical) return kBool;
  switch (cls) {
    case mxDOUBLE:
      return kFloat64;
    case mxSINGLE:
      return kFloat32;
    case mxUINT8:
      return kUInt8;
    case mxINT8:
    case mxINT16:
    case mxUINT16:
    case mxINT32:
      return kInt32;
    default:
      return kInt64;  // uint32, int64, uint64
  }
}

void append_utf8(std::string& out, uint32_t cp) {
  if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) cp = 0xFFFD;
  if (cp < 0x80) {
    out += char(cp);
  } else if (cp < 0x800) {
    out += char(0xC0 | (cp >> 6)), out += char(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += char(0xE0 | (cp >> 12)), out += char(0x80 | ((cp >> 6) & 0x3F)), out += char(0x80 | (cp & 0x3F));
  } else {
    out += char(0xF0 | (cp >> 18)), out += char(0x80 | ((cp >> 12) & 0x3F));
    out += char(0x80 | ((cp >> 6) & 0x3F)), out += char(0x80 | (cp & 0x3F));
  }
}

// A char array's characters as code points. MATLAB's chars are UTF-16 units; UTF-8 data counts
// one char per code point (scipy writes it so).
std::vector<uint32_t> code_points(const Element& e, bool swap, const std::string& what) {
  std::vector<uint32_t> cps;
  if (e.type == miUTF8) {
    for (size_t i = 0; i < e.data.size();) {
      const unsigned char c = e.data[i];
      const int extra = c < 0x80 ? 0 : c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : c >= 0xC0 ? 1 : -1;
      STRATA_CHECK(extra >= 0 && i + extra < e.data.size(), what, ": invalid UTF-8 at byte ", i);
      uint32_t cp = extra == 0 ? c : c & (0x3F >> extra);
      for (int k = 1; k <= extra; ++k) {
        STRATA_CHECK((e.data[i + k] & 0xC0) == 0x80, what, ": invalid UTF-8 at byte ", i + k);
        cp = (cp << 6) | (e.data[i + k] & 0x3F);
      }
      cps.push_back(cp);
      i += extra + 1;
    }
    return cps;
  }
  const size_t step = mi_size(e.type);
  STRATA_CHECK(step != 0 && e.type != miSINGLE && e.type != miDOUBLE && e.data.size() % step == 0, what,
               ": char data of type ", e.type, " and ", e.data.size(), " bytes");
  for (size_t i = 0; i < e.data.size(); i += step) cps.push_back(uint32_t(mi_value<int64_t>(&e.data[i], e.type, swap)));
  return cps;
}

class Parser {
 public:
  Parser(const std::string& name, bool swap, const MatFileOptions& options)
      : name_(name), swap_(swap), options_(options) {}

  // One miMATRIX element's bytes: its name and value.
  std::pair<std::string, MatValue> matrix(Bytes bytes, int depth) {
    STRATA_CHECK(depth <= options_.max_depth, "MAT-file ", name_, ": cells and structs nest deeper than ",
                 options_.max_depth);
    MatValue v;
    if (bytes.empty()) {  // MATLAB's empty value inside a cell or struct: [] (0x0 double)
      v.class_name = "double", v.dims = {0, 0}, v.array = Tensor::empty(Shape{0, 0}, kFloat64);
      return {"", std::move(v)};
    }
    Cursor c(bytes, swap_, name_);
    const Element flags = c.next("array flags");
    STRATA_CHECK(flags.type == miUINT32 && flags.data.size() == 8, "MAT-file ", name_,
                 ": array flags must be 8 bytes of miUINT32, came type ", flags.type, " with ", flags.data.size(),
                 " bytes");
    const uint32_t word = load<uint32_t>(flags.data.data(), swap_);
    const uint32_t cls = word & 0xFF, bits = (word >> 8) & 0xFF;
    v.class_name = class_name_of(cls);
    const Element dims = c.next("dimensions");
    STRATA_CHECK(
        dims.type == miINT32 && dims.data.size() % 4 == 0 && dims.data.size() >= 8 && dims.data.size() <= 4 * 32,
        "MAT-file ", name_, ": dimensions must be 2 to 32 miINT32 values, came type ", dims.type, " with ",
        dims.data.size(), " bytes");
    for (size_t i = 0; i < dims.data.size(); i += 4) {
      const int32_t d = load<int32_t>(&dims.data[i], swap_);
      STRATA_CHECK(d >= 0, "MAT-file ", name_, ": negative dimension ", d);
      v.dims.push_back(d);
    }
    int64_t count = 1;  // so that numel() is defined for every value, unsupported ones included
    for (int64_t d : v.dims)
      STRATA_CHECK(!__builtin_mul_overflow(count, d, &count), "MAT-file ", name_, ": dimensions overflow int64");
    const Element name_element = c.next("array name");
    std::string var_name(name_element.data.begin(), name_element.data.end());
    const std::string what = "MAT-file " + name_ + ": " + (var_name.empty() ? "a value" : "variable " + var_name);

    if (cls >= mxDOUBLE && cls <= mxUINT64 && !(bits & kComplexFlag)) {
      numeric(c, v, cls, bits & kLogicalFlag, what);
    } else if (cls == mxCHAR) {
      text(c, v, what);
    } else if (cls == mxCELL) {
      v.kind = MatValue::Kind::cell;
      const int64_t n = bounded_count(v.dims, bytes.size() / 8, what);
      v.cells.reserve(n);
      for (int64_t i = 0; i < n; ++i) v.cells.push_back(child(c, depth, what));
    } else if (cls == mxSTRUCT) {
      structure(c, v, depth, bytes.size(), what);
    } else {
      v.kind = MatValue::Kind::unsupported;  // objects, sparse, complex, function handles
      if (bits & kComplexFlag) v.class_name = "complex " + v.class_name;
    }
    return {std::move(var_name), std::move(v)};
  }

 private:
  // The element count of cell or struct dims, which must be at most `most` (each element needs
  // at least one 8-byte tag, so the bytes present bound it before anything is reserved).
  int64_t bounded_count(const std::vector<int64_t>& dims, uint64_t most, const std::string& what) {
    uint64_t n = 1;
    for (int64_t d : dims) {
      if (d == 0) return 0;
      STRATA_CHECK(uint64_t(d) <= most && n <= most / uint64_t(d), what, ": ", dims.size(),
                   " dimensions claim more elements than its ", most * 8, " bytes can hold");
      n *= uint64_t(d);
    }
    return int64_t(n);
  }

  MatValue child(Cursor& c, int depth, const std::string& what) {
    const Element e = c.next("a cell or field value");
    STRATA_CHECK(e.type == miMATRIX, what, ": a cell or field value must be miMATRIX, came type ", e.type);
    return matrix(e.data, depth + 1).second;
  }

  void numeric(Cursor& c, MatValue& v, uint32_t cls, bool logical, const std::string& what) {
    const Element real = c.next("real part");
    const size_t step = mi_size(real.type);
    STRATA_CHECK(step != 0 && real.type < miUTF8 && real.data.size() % step == 0, what, ": numeric data of type ",
                 real.type, " and ", real.data.size(), " bytes");
    // Column-major data is a row-major array of the reversed dims; permuting back gives scipy's.
    std::vector<int64_t> reversed(v.dims.rbegin(), v.dims.rend());
    const DType dtype = dtype_of_class(cls, logical);
    const CheckedSize size = checked_size(std::span<const int64_t>(reversed), itemsize(dtype), what);
    STRATA_CHECK(uint64_t(size.numel) == real.data.size() / step, what, ": dims say ", size.numel,
                 " elements, the data holds ", real.data.size() / step);
    Tensor column_major = Tensor::empty(size.shape, dtype);
    switch (dtype) {
      case kFloat64:
        convert(column_major.data<double>(), real, size.numel, swap_, what);
        break;
      case kFloat32:
        convert(column_major.data<float>(), real, size.numel, swap_, what);
        break;
      case kUInt8:
        convert(column_major.data<uint8_t>(), real, size.numel, swap_, what);
        break;
      case kInt32:
        convert(column_major.data<int32_t>(), real, size.numel, swap_, what);
        break;
      case kBool:
        convert(column_major.data<bool>(), real, size.numel, swap_, what);
        break;
      default:
        convert(column_major.data<int64_t>(), real, size.numel, swap_, what);
        break;
    }
    std::vector<int64_t> order(v.dims.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = int64_t(order.size() - 1 - i);
    v.array = column_major.permute(Shape(order)).contiguous();
    if (logical) v.class_name = "logical";
  }

  void text(Cursor& c, MatValue& v, const std::string& what) {
    v.kind = MatValue::Kind::text;
    const std::vector<uint32_t> cps = code_points(c.next("char data"), swap_, what);
    const int64_t rows = v.dims[0];
    const int64_t n = bounded_count(v.dims, cps.size(), what);
    STRATA_CHECK(uint64_t(n) == cps.size(), what, ": dims say ", n, " chars, the data holds ", cps.size());
    const int64_t cols = n == 0 ? 0 : n / rows;
    v.rows.assign(n == 0 ? 0 : rows, {});  // an empty char array is no rows, whatever its dims
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t j = 0; j < cols; ++j) append_utf8(v.rows[r], cps[r + rows * j]);
  }

  void structure(Cursor& c, MatValue& v, int depth, size_t bytes, const std::string& what) {
    v.kind = MatValue::Kind::structure;
    const Element length = c.next("field name length");
    STRATA_CHECK(length.type == miINT32 && length.data.size() == 4, what,
                 ": the field name length must be one miINT32");
    const int32_t len = load<int32_t>(length.data.data(), swap_);
    const Element names = c.next("field names");
    STRATA_CHECK(names.type == miINT8 || names.type == miUINT8, what, ": field names must be miINT8, came type ",
                 names.type);
    if (!names.data.empty()) {
      STRATA_CHECK(len > 0 && names.data.size() % len == 0, what, ": ", names.data.size(),
                   " bytes of field names are not a whole number of ", len, "-byte names");
      for (size_t i = 0; i < names.data.size(); i += len) {
        const auto* p = reinterpret_cast<const char*>(&names.data[i]);
        v.field_names.emplace_back(p, strnlen(p, len));
      }
    }
    const uint64_t nfields = v.field_names.size();
    if (nfields == 0) return;
    const int64_t n = bounded_count(v.dims, bytes / 8 / nfields, what);
    v.fields.reserve(n * nfields);
    for (int64_t i = 0; i < n * int64_t(nfields); ++i) v.fields.push_back(child(c, depth, what));
  }

  const std::string& name_;
  bool swap_;
  const MatFileOptions& options_;
};

// A miCOMPRESSED element's zlib stream, inflated, bounded by limits().max_tensor_bytes.
std::vector<unsigned char> inflate_element(Bytes in, const std::string& name) {
  const uint64_t limit = limits().max_tensor_bytes;
  std::vector<unsigned char> out(std::min<uint64_t>(limit, std::max<uint64_t>(4 * in.size(), 1024)));
  z_stream z{};
  STRATA_CHECK(inflateInit(&z) == Z_OK, "MAT-file ", name, ": zlib could not start");
  z.next_in = const_cast<unsigned char*>(in.data());
  z.avail_in = 0;
  size_t in_left = in.size(), produced = 0;
  int rc = Z_OK;
  while (rc != Z_STREAM_END) {
    if (produced == out.size()) {
      if (out.size() >= limit) {
        inflateEnd(&z);
        check_limit("MAT-file " + name, "inflated bytes", limit + 1, "max_tensor_bytes", limit);
      }
      out.resize(std::min<uint64_t>(limit, out.size() * 2));
    }
    if (z.avail_in == 0) {
      z.avail_in = uInt(std::min<size_t>(in_left, 1u << 30));
      in_left -= z.avail_in;
    }
    z.next_out = out.data() + produced;
    z.avail_out = uInt(std::min<size_t>(out.size() - produced, 1u << 30));
    const uInt before = z.avail_out;
    rc = inflate(&z, Z_NO_FLUSH);
    produced += before - z.avail_out;
    if (rc != Z_OK && rc != Z_STREAM_END && !(rc == Z_BUF_ERROR && produced == out.size())) {
      inflateEnd(&z);
      STRATA_CHECK(false, "MAT-file ", name, ": a compressed element is ", rc == Z_BUF_ERROR ? "truncated" : "corrupt",
                   " (zlib: ", z.msg ? z.msg : "no message", ")");
    }
  }
  inflateEnd(&z);
  out.resize(produced);
  return out;
}

}  // namespace

int64_t MatValue::numel() const {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;  // read_mat refused dims whose product overflows
  return n;
}

std::string MatValue::text() const {
  STRATA_CHECK(kind == Kind::text, "MAT value: text() of a ", class_name, " value");
  if (rows.empty() || (rows.size() == 1)) return rows.empty() ? "" : rows[0];
  STRATA_CHECK(false, "MAT value: text() of a char array with ", rows.size(), " rows");
  return {};
}

bool MatValue::has_field(const std::string& name) const {
  return std::find(field_names.begin(), field_names.end(), name) != field_names.end();
}

const MatValue& MatValue::field(const std::string& name, int64_t element) const {
  STRATA_CHECK(kind == Kind::structure, "MAT value: field '", name, "' of a ", class_name, " value");
  const auto it = std::find(field_names.begin(), field_names.end(), name);
  if (it == field_names.end()) {
    std::string have;
    for (const auto& f : field_names) have += (have.empty() ? "" : ", ") + f;
    STRATA_CHECK(false, "MAT value: no field '", name, "'; the struct has ", have.empty() ? "none" : have);
  }
  const int64_t n = fields.empty() ? 0 : int64_t(fields.size() / field_names.size());
  STRATA_CHECK(element >= 0 && element < n, "MAT value: struct element ", element, " of ", n, " (field '", name, "')");
  return fields[element * field_names.size() + (it - field_names.begin())];
}

const MatValue& MatValue::cell(int64_t i) const {
  STRATA_CHECK(kind == Kind::cell, "MAT value: cell ", i, " of a ", class_name, " value");
  STRATA_CHECK(i >= 0 && i < int64_t(cells.size()), "MAT value: cell ", i, " of ", cells.size());
  return cells[i];
}

double MatValue::scalar() const {
  STRATA_CHECK(kind == Kind::numeric && array.defined() && array.numel() == 1,
               "MAT value: a number was expected, came a ", class_name, " value with ", numel(), " elements");
  return array.item<double>();
}

bool MatFile::contains(const std::string& name) const {
  return std::any_of(variables.begin(), variables.end(), [&](const auto& v) { return v.first == name; });
}

const MatValue& MatFile::at(const std::string& name) const {
  std::string have;
  for (const auto& [n, value] : variables) {
    if (n == name) return value;
    have += (have.empty() ? "" : ", ") + n;
  }
  STRATA_CHECK(false, "MAT-file ", path, ": no variable '", name, "'; it has ", have.empty() ? "none" : have);
  throw Error("unreachable");
}

MatFile parse_mat(std::span<const unsigned char> bytes, const std::string& name, const MatFileOptions& options) {
  STRATA_CHECK(bytes.size() >= 128, "MAT-file ", name,
               ": a level-5 MAT-file starts with a 128-byte header, the file has ", bytes.size(), " bytes");
  const bool little = bytes[126] == 'I' && bytes[127] == 'M';
  STRATA_CHECK(little || (bytes[126] == 'M' && bytes[127] == 'I'), "MAT-file ", name,
               ": no endian mark ('IM' or 'MI') at byte 126: not a level-5 MAT-file (a v4 file?)");
  const bool swap = little != (std::endian::native == std::endian::little);
  const uint16_t version = load<uint16_t>(&bytes[124], swap);
  STRATA_CHECK(version != 0x0200, "MAT-file ", name, ": a v7.3 MAT-file is HDF5; read it with strata/io/hdf5.hpp");
  STRATA_CHECK(version == 0x0100, "MAT-file ", name, ": version ", version, ", expected 0x0100 (level 5)");
  MatFile file{name, {}};
  Parser parser(name, swap, options);
  Cursor top(bytes.subspan(128), swap, name);
  while (!top.done()) {
    const Element e = top.next("a variable");
    if (e.type == miCOMPRESSED) {
      const std::vector<unsigned char> inflated = inflate_element(e.data, name);
      Cursor inner(inflated, swap, name);
      const Element m = inner.next("a compressed variable");
      STRATA_CHECK(m.type == miMATRIX, "MAT-file ", name, ": a compressed element must hold miMATRIX, came type ",
                   m.type);
      file.variables.push_back(parser.matrix(m.data, 0));
    } else {
      STRATA_CHECK(e.type == miMATRIX, "MAT-file ", name, ": a variable must be miMATRIX or miCOMPRESSED, came type ",
                   e.type);
      file.variables.push_back(parser.matrix(e.data, 0));
    }
  }
  return file;
}

MatFile read_mat(const std::string& path, const MatFileOptions& options) {
  const std::vector<unsigned char> bytes = detail::read_file_bytes(path, "MAT-file");
  return parse_mat(bytes, path, options);
}

}  // namespace strata::data
