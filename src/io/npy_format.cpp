// .npy headers are Python dict literals; this reads the subset NumPy writes (strings, True /
// False, tuples of non-negative integers) with a small tokenizer rather than substring search,
// so that a key inside a string or a malformed tuple cannot be misread.
#include "strata/io/npy_format.hpp"

#include <bit>
#include <cctype>
#include <cstring>

#include "strata/core/checked_size.hpp"
#include "strata/core/error.hpp"

namespace strata::io {
namespace {

static_assert(std::endian::native == std::endian::little, ".npy data is read as little-endian");

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicLen = 6;

struct DescrName {
  const char* kind;
  DType dtype;
};
constexpr DescrName kKinds[] = {{"f4", kFloat32}, {"f8", kFloat64}, {"i4", kInt32},
                                {"i8", kInt64},   {"u1", kUInt8},   {"b1", kBool}};

// Reads the header dict one token at a time.
class DictReader {
 public:
  DictReader(std::string_view text, const std::string& source) : s_(text), source_(source) {}

  void expect(char c) {
    skip_space();
    STRATA_CHECK(pos_ < s_.size() && s_[pos_] == c, source_, ": malformed .npy header (expected '", std::string(1, c),
                 "' at offset ", pos_, "): ", std::string(s_));
    ++pos_;
  }
  bool accept(char c) {
    skip_space();
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  std::string string() {
    skip_space();
    STRATA_CHECK(pos_ < s_.size() && (s_[pos_] == '\'' || s_[pos_] == '"'), source_,
                 ": malformed .npy header (expected a string at offset ", pos_, "; structured dtypes are not supported): ",
                 std::string(s_));
    const char quote = s_[pos_++];
    const size_t end = s_.find(quote, pos_);
    STRATA_CHECK(end != std::string_view::npos, source_, ": malformed .npy header (unterminated string)");
    std::string out(s_.substr(pos_, end - pos_));
    pos_ = end + 1;
    return out;
  }
  bool boolean() {
    skip_space();
    for (auto [word, value] : {std::pair{"True", true}, std::pair{"False", false}})
      if (s_.substr(pos_, std::strlen(word)) == word) {
        pos_ += std::strlen(word);
        return value;
      }
    throw Error(source_ + ": malformed .npy header (fortran_order is neither True nor False): " + std::string(s_));
  }
  std::vector<int64_t> tuple() {
    expect('(');
    std::vector<int64_t> out;
    while (!accept(')')) {
      skip_space();
      size_t digits = 0;
      int64_t v = 0;
      while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) {
        STRATA_CHECK(++digits <= 18, source_, ": .npy shape has a size too large to be real");
        v = v * 10 + (s_[pos_++] - '0');
      }
      STRATA_CHECK(digits > 0, source_, ": malformed .npy shape (expected a non-negative integer at offset ", pos_,
                   "): ", std::string(s_));
      out.push_back(v);
      if (!accept(',')) {
        expect(')');
        break;
      }
    }
    return out;
  }

 private:
  void skip_space() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  std::string_view s_;
  const std::string& source_;
  size_t pos_ = 0;
};

}  // namespace

void parse_npy_descr(NpyHeader& h, const std::string& source) {
  const std::string& d = h.descr;
  if (d == "|O" || d == "O" || d == "|O8" || d == "|O4") {
    h.object = true;
    return;
  }
  STRATA_CHECK(d.size() == 3 && (d[0] == '<' || d[0] == '>' || d[0] == '|' || d[0] == '='), source,
               ": unsupported .npy dtype '", d, "' (expected one of <f4 <f8 <i4 <i8 |u1 |b1)");
  h.big_endian = d[0] == '>';
  for (const auto& k : kKinds)
    if (d.compare(1, 2, k.kind) == 0) {
      h.dtype = k.dtype;
      return;
    }
  throw Error(source + ": unsupported .npy dtype '" + d + "' (expected one of <f4 <f8 <i4 <i8 |u1 |b1)");
}

namespace {

uint32_t read_le(std::string_view b, size_t at, int n) {
  uint32_t v = 0;
  for (int i = n - 1; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(b[at + i]);
  return v;
}

}  // namespace

NpyHeader parse_npy_header(std::string_view bytes, const std::string& source) {
  STRATA_CHECK(bytes.size() >= 10 && bytes.substr(0, kMagicLen) == std::string_view(kMagic, kMagicLen), source,
               ": not a .npy array (expected the magic string \\x93NUMPY)");
  const int major = static_cast<unsigned char>(bytes[6]);
  STRATA_CHECK(major >= 1 && major <= 3, source, ": unsupported .npy format version ", major, ".",
               static_cast<int>(static_cast<unsigned char>(bytes[7])), " (expected 1.0, 2.0 or 3.0)");
  const size_t len_size = major == 1 ? 2 : 4, start = 8 + len_size;
  STRATA_CHECK(bytes.size() >= start, source, ": truncated .npy header");
  const size_t header_len = read_le(bytes, 8, static_cast<int>(len_size));
  STRATA_CHECK(header_len <= bytes.size() - start, source, ": truncated .npy header (", header_len,
               " bytes announced, ", bytes.size() - start, " present)");

  NpyHeader h;
  h.data_offset = start + header_len;
  DictReader r(bytes.substr(start, header_len), source);
  bool seen_descr = false, seen_order = false, seen_shape = false;
  r.expect('{');
  while (!r.accept('}')) {
    const std::string key = r.string();
    r.expect(':');
    if (key == "descr") {
      h.descr = r.string();
      seen_descr = true;
    } else if (key == "fortran_order") {
      h.fortran_order = r.boolean();
      seen_order = true;
    } else if (key == "shape") {
      h.shape = r.tuple();
      seen_shape = true;
    } else {
      throw Error(source + ": unexpected key '" + key + "' in .npy header");
    }
    if (!r.accept(',')) {
      r.expect('}');
      break;
    }
  }
  STRATA_CHECK(seen_descr && seen_order && seen_shape, source,
               ": .npy header lacks one of 'descr', 'fortran_order', 'shape'");
  parse_npy_descr(h, source);
  return h;
}

Tensor decode_npy(std::string_view bytes, const std::string& source) {
  const NpyHeader h = parse_npy_header(bytes, source);
  return npy_array(h, bytes.substr(h.data_offset), source);
}

Tensor npy_array(const NpyHeader& h, std::string_view data, const std::string& source) {
  STRATA_CHECK(!h.object, source, ": an object array (pickled Python objects), not numbers; ",
               "TensorLayer's save_npz lists are read by io::load_npz_list");
  STRATA_CHECK(!h.fortran_order, source, ": Fortran-order arrays are not supported (save with C order, ",
               "e.g. numpy.ascontiguousarray)");
  STRATA_CHECK(!h.big_endian || itemsize(h.dtype) == 1, source, ": big-endian dtype '", h.descr,
               "' is not supported (expected little-endian '<')");
  const CheckedSize checked = checked_size(h.shape, itemsize(h.dtype), source);
  const uint64_t need = checked.bytes, have = data.size();
  // Compared before allocating: a header cannot make us allocate more than the input holds.
  STRATA_CHECK(need == have, source, ": shape ", checked.shape.str(), " of ", dtype_name(h.dtype), " needs ", need,
               " data bytes, the array has ", have);
  Tensor t = Tensor::empty(checked.shape, h.dtype);
  if (need > 0) std::memcpy(t.raw_data(), data.data(), need);
  if (h.dtype == kBool) {
    const auto* p = static_cast<const unsigned char*>(t.raw_data());
    for (int64_t i = 0; i < t.numel(); ++i)
      STRATA_CHECK(p[i] <= 1, source, ": bool element ", i, " is byte ", static_cast<int>(p[i]), ", not 0 or 1");
  }
  return t;
}

const char* npy_descr(DType dtype) {
  switch (dtype) {
    case DType::f32: return "<f4";
    case DType::f64: return "<f8";
    case DType::i32: return "<i4";
    case DType::i64: return "<i8";
    case DType::u8: return "|u1";
    case DType::b8: return "|b1";
  }
  throw Error("npy_descr: unknown dtype");
}

std::string encode_npy_header(const std::string& descr, const std::vector<int64_t>& shape) {
  std::string dims;
  for (size_t i = 0; i < shape.size(); ++i) dims += (i > 0 ? ", " : "") + std::to_string(shape[i]);
  if (shape.size() == 1) dims += ",";  // Python's one-element tuple
  std::string dict = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (" + dims + "), }";
  const bool v2 = dict.size() + 1 + 10 + 63 > 65535;
  const size_t prefix = v2 ? 12 : 10;
  // Spaces and a newline so that the data starts at a multiple of 64, as NumPy pads.
  dict.append((64 - (prefix + dict.size() + 1) % 64) % 64, ' ');
  dict += '\n';
  std::string out(kMagic, kMagicLen);
  out += static_cast<char>(v2 ? 2 : 1);
  out += '\0';
  for (size_t i = 0; i < prefix - 8; ++i) out += static_cast<char>((dict.size() >> (8 * i)) & 0xff);
  return out + dict;
}

std::string encode_npy(const Tensor& tensor) {
  STRATA_CHECK(tensor.defined(), "encode_npy: the tensor is undefined");
  const Tensor c = tensor.is_contiguous() ? tensor : tensor.contiguous();
  std::string out = encode_npy_header(npy_descr(c.dtype()), c.shape().vec());
  out.append(static_cast<const char*>(c.raw_data()), c.nbytes());
  return out;
}

}  // namespace strata::io
