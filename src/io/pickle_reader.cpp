// A pickle reader that runs no code: it interprets a fixed set of opcodes over its own small
// object model, and the few globals it accepts are recognised by name and interpreted here.
// Every length is checked against the bytes left before anything is copied. The objects live in
// one arena owned by the reader and refer to each other by plain pointers, so however deep a
// hostile pickle nests (or however it loops through the memo), nothing is destroyed
// recursively; nesting is also bounded by limits().max_pickle_depth as it is built.
#include <algorithm>
#include <cstring>
#include <deque>
#include <map>

#include "strata/core/error.hpp"
#include "strata/core/limits.hpp"
#include "strata/io/npy_format.hpp"
#include "strata/io/pickle.hpp"

namespace strata::io {
namespace {

enum class Kind { none, boolean, integer, bytes, text, tuple, list, global, dtype, array };
enum class Global { reconstruct, ndarray, dtype, frombuffer, codecs_encode };

struct Obj;
using Ref = Obj*;  // owned by the Unpickler's arena
struct Obj {
  Kind kind;
  uint64_t depth = 1;      // nesting: 1 + the deepest item's when it was added
  int64_t i = 0;           // boolean, integer, global (a Global)
  std::string s;           // bytes, text, dtype's kind ("f4", "O8"), array data
  std::vector<Ref> items;  // tuple, list, object array elements
  // dtype: byte order; array: shape, dtype, whether BUILD gave it its state.
  char order = '=';
  std::vector<int64_t> shape;
  Ref dtype = nullptr;
  bool built = false, fortran = false;
};

const char* kind_name(Kind k) {
  constexpr const char* names[] = {"None", "bool", "int", "bytes", "str", "tuple", "list", "global", "dtype", "ndarray"};
  return names[static_cast<int>(k)];
}

struct AllowedGlobal {
  const char* module;
  const char* name;
  Global global;
};
constexpr AllowedGlobal kAllowed[] = {
    {"numpy.core.multiarray", "_reconstruct", Global::reconstruct},
    {"numpy._core.multiarray", "_reconstruct", Global::reconstruct},
    {"numpy", "ndarray", Global::ndarray},
    {"numpy", "dtype", Global::dtype},
    {"numpy.core.numeric", "_frombuffer", Global::frombuffer},
    {"numpy._core.numeric", "_frombuffer", Global::frombuffer},
    {"_codecs", "encode", Global::codecs_encode},
};

class Unpickler {
 public:
  Unpickler(std::string_view b, const std::string& source) : b_(b), source_(source) {}

  Ref run() {
    while (true) {
      const size_t at = pos_;
      const unsigned char op = byte();
      switch (op) {
        case 0x80: byte(); break;                         // PROTO
        case 0x95: take(8); break;                        // FRAME: a size hint
        case '.': {                                       // STOP
          STRATA_CHECK(stack_.size() == 1 && marks_.empty(), source_, ": pickle stops with ", stack_.size(),
                       " values on its stack (expected 1)");
          return stack_.back();
        }
        case '(': marks_.push_back(stack_.size()); break;  // MARK
        case ')': push(make(Kind::tuple)); break;          // EMPTY_TUPLE
        case 't': push(collect(Kind::tuple)); break;       // TUPLE
        case 'l': push(collect(Kind::list)); break;        // LIST
        case 0x85: case 0x86: case 0x87: {                 // TUPLE1..3
          const size_t n = op - 0x84u;
          STRATA_CHECK(values_since_mark() >= n, source_, ": pickle's TUPLE", n, " at offset ", at, " takes ", n,
                       " values, only ", values_since_mark(), " are on the stack above its last MARK");
          Ref t = make(Kind::tuple);
          adopt(t, stack_.end() - static_cast<std::ptrdiff_t>(n), stack_.end());
          stack_.resize(stack_.size() - n);
          push(t);
          break;
        }
        case ']': push(make(Kind::list)); break;           // EMPTY_LIST
        case 'a': {                                        // APPEND
          Ref v = pop();
          Ref list = expect_kind(top(), Kind::list, "APPEND");
          adopt(list, &v, &v + 1);
          break;
        }
        case 'e': {                                        // APPENDS
          Ref items = collect(Kind::tuple);
          Ref list = expect_kind(top(), Kind::list, "APPENDS");
          adopt(list, items->items.begin(), items->items.end());
          break;
        }
        case 'N': push(make(Kind::none)); break;
        case 0x88: case 0x89: push(integer(Kind::boolean, op == 0x88)); break;
        case 'K': push(integer(Kind::integer, byte())); break;
        case 'M': push(integer(Kind::integer, static_cast<int64_t>(le(2)))); break;
        case 'J': push(integer(Kind::integer, static_cast<int32_t>(le(4)))); break;
        case 0x8a: {                                       // LONG1
          const size_t n = byte();
          STRATA_CHECK(n <= 8, source_, ": pickle integer of ", n, " bytes is out of range");
          uint64_t v = le(n);
          if (n > 0 && n < 8 && (v >> (8 * n - 1)) & 1) v |= ~uint64_t{0} << (8 * n);  // sign-extend
          push(integer(Kind::integer, static_cast<int64_t>(v)));
          break;
        }
        case 'C': case 'U': push(string(Kind::bytes, byte())); break;   // SHORT_BINBYTES, SHORT_BINSTRING
        case 'B': push(string(Kind::bytes, le(4))); break;              // BINBYTES
        case 'T': {                                                     // BINSTRING (signed length)
          const int32_t n = static_cast<int32_t>(le(4));
          STRATA_CHECK(n >= 0, source_, ": negative string length in pickle at offset ", at);
          push(string(Kind::bytes, static_cast<uint64_t>(n)));
          break;
        }
        case 0x8e: case 0x96: push(string(Kind::bytes, le(8))); break;  // BINBYTES8, BYTEARRAY8
        case 0x8c: push(string(Kind::text, byte())); break;             // SHORT_BINUNICODE
        case 'X': push(string(Kind::text, le(4))); break;               // BINUNICODE
        case 0x8d: push(string(Kind::text, le(8))); break;              // BINUNICODE8
        case 'c': {                                                     // GLOBAL
          const std::string module = line(), name = line();
          push(global(module, name));
          break;
        }
        case 0x93: {                                                    // STACK_GLOBAL
          const std::string name = text_of(pop(), "STACK_GLOBAL name"), module = text_of(pop(), "STACK_GLOBAL module");
          push(global(module, name));
          break;
        }
        case 'q': memo_[byte()] = top(); break;                         // BINPUT
        case 'r': memo_[le(4)] = top(); break;                          // LONG_BINPUT
        case 0x94: memo_[memo_.size()] = top(); break;                  // MEMOIZE
        case 'h': push(get(byte(), at)); break;                         // BINGET
        case 'j': push(get(le(4), at)); break;                          // LONG_BINGET
        case '0': pop(); break;                                         // POP
        case 'R': {                                                     // REDUCE
          Ref args = expect_kind(pop(), Kind::tuple, "REDUCE arguments");
          push(reduce(expect_kind(pop(), Kind::global, "REDUCE callable"), args->items));
          break;
        }
        case 'b': {                                                     // BUILD
          Ref state = pop();
          build(top(), state);
          break;
        }
        default: {
          const bool printable = op >= 0x20 && op < 0x7f;
          char hex[8];
          std::snprintf(hex, sizeof hex, "0x%02x", op);
          throw Error(source_ + ": pickle opcode " + hex + (printable ? std::string(" '") + char(op) + "'" : "") +
                      " at offset " + std::to_string(at) +
                      " is not allowed (Strata reads only NumPy arrays and lists of them)");
        }
      }
    }
  }

 private:
  unsigned char byte() {
    STRATA_CHECK(pos_ < b_.size(), source_, ": pickle is truncated (no STOP opcode)");
    return static_cast<unsigned char>(b_[pos_++]);
  }
  std::string_view take(uint64_t n) {
    STRATA_CHECK(n <= b_.size() - pos_, source_, ": pickle declares ", n, " bytes at offset ", pos_, " but only ",
                 b_.size() - pos_, " remain (truncated or hostile)");
    std::string_view out = b_.substr(pos_, n);
    pos_ += n;
    return out;
  }
  uint64_t le(size_t n) {
    const std::string_view s = take(n);
    uint64_t v = 0;
    for (size_t i = n; i-- > 0;) v = (v << 8) | static_cast<unsigned char>(s[i]);
    return v;
  }
  std::string line() {
    const size_t end = b_.find('\n', pos_);
    STRATA_CHECK(end != std::string_view::npos && end - pos_ <= 256, source_, ": malformed GLOBAL at offset ", pos_);
    std::string out(b_.substr(pos_, end - pos_));
    pos_ = end + 1;
    return out;
  }

  Ref make(Kind k) {
    // A one-byte opcode makes an object of about a hundred bytes: bounded like a tensor's bytes.
    check_limit(source_, "pickle object bytes", (arena_.size() + 1) * sizeof(Obj), "max_tensor_bytes",
                limits().max_tensor_bytes);
    Ref r = &arena_.emplace_back();
    r->kind = k;
    return r;
  }
  // Appends [first, last) to the container's items, refusing nesting past max_pickle_depth.
  template <class It>
  void adopt(Ref container, It first, It last) {
    for (It it = first; it != last; ++it)
      container->depth = std::max(container->depth, (*it)->depth + 1);
    check_limit(source_, "pickle nesting depth", container->depth, "max_pickle_depth", limits().max_pickle_depth);
    container->items.insert(container->items.end(), first, last);
  }
  Ref integer(Kind k, int64_t v) {
    Ref r = make(k);
    r->i = v;
    return r;
  }
  Ref string(Kind k, uint64_t n) {
    const std::string_view s = take(n);
    Ref r = make(k);
    r->s.assign(s);
    return r;
  }
  Ref global(const std::string& module, const std::string& name) {
    for (const auto& g : kAllowed)
      if (module == g.module && name == g.name) return integer(Kind::global, static_cast<int64_t>(g.global));
    throw Error(source_ + ": pickle refers to global '" + module + "." + name +
                "', which is not allowed (only NumPy's array and dtype constructors are)");
  }
  Ref get(uint64_t key, size_t at) {
    auto it = memo_.find(key);
    STRATA_CHECK(it != memo_.end(), source_, ": pickle reads memo entry ", key, " at offset ", at, " before writing it");
    return it->second;
  }

  void push(Ref r) { stack_.push_back(std::move(r)); }
  // The values a MARK-less opcode may use: those pushed since the last MARK.
  size_t values_since_mark() const { return stack_.size() - (marks_.empty() ? 0 : marks_.back()); }
  Ref top() {
    STRATA_CHECK(values_since_mark() > 0, source_, ": pickle stack underflow at offset ", pos_);
    return stack_.back();
  }
  Ref pop() {
    Ref r = top();
    stack_.pop_back();
    return r;
  }
  Ref collect(Kind k) {  // the values since the last MARK
    STRATA_CHECK(!marks_.empty(), source_, ": pickle has no MARK before offset ", pos_);
    Ref r = make(k);
    adopt(r, stack_.begin() + static_cast<std::ptrdiff_t>(marks_.back()), stack_.end());
    stack_.resize(marks_.back());
    marks_.pop_back();
    return r;
  }
  Ref expect_kind(const Ref& r, Kind k, const char* what) {
    STRATA_CHECK(r->kind == k, source_, ": pickle's ", what, " is a ", kind_name(r->kind), ", expected a ", kind_name(k));
    return r;
  }
  std::string text_of(const Ref& r, const char* what) {
    STRATA_CHECK(r->kind == Kind::text || r->kind == Kind::bytes, source_, ": pickle's ", what, " is a ",
                 kind_name(r->kind), ", expected a string");
    return r->s;
  }
  void expect_args(const std::vector<Ref>& a, size_t n, const char* what) {
    STRATA_CHECK(a.size() == n, source_, ": pickle calls ", what, " with ", a.size(), " arguments, expected ", n);
  }
  std::vector<int64_t> shape_of(const Ref& r) {
    expect_kind(r, Kind::tuple, "array shape");
    std::vector<int64_t> out;
    for (const Ref& d : r->items) out.push_back(expect_kind(d, Kind::integer, "array size")->i);
    return out;  // checked (sizes, bytes) when the array is made, by npy_array
  }
  // Python 3 pickles bytes for protocol 2 as _codecs.encode(text, 'latin1'): text's code
  // points, all below 256, are the bytes.
  std::string latin1(const std::string& utf8) {
    std::string out;
    for (size_t i = 0; i < utf8.size(); ++i) {
      const auto c = static_cast<unsigned char>(utf8[i]);
      if (c < 0x80) {
        out += static_cast<char>(c);
      } else {
        STRATA_CHECK((c & 0xe0) == 0xc0 && i + 1 < utf8.size() && c <= 0xc3, source_,
                     ": _codecs.encode text is not latin-1");
        out += static_cast<char>(((c & 0x1f) << 6) | (static_cast<unsigned char>(utf8[++i]) & 0x3f));
      }
    }
    return out;
  }

  Ref reduce(const Ref& callable, const std::vector<Ref>& a) {
    switch (static_cast<Global>(callable->i)) {
      case Global::reconstruct: {  // _reconstruct(ndarray, shape, b'b'): an empty array BUILD fills
        expect_args(a, 3, "numpy's _reconstruct");
        STRATA_CHECK(a[0]->kind == Kind::global && static_cast<Global>(a[0]->i) == Global::ndarray, source_,
                     ": pickle's _reconstruct builds something other than numpy.ndarray");
        return make(Kind::array);
      }
      case Global::dtype: {  // dtype(kind, align, copy)
        expect_args(a, 3, "numpy.dtype");
        Ref d = make(Kind::dtype);
        d->s = text_of(a[0], "dtype name");
        return d;
      }
      case Global::codecs_encode: {
        expect_args(a, 2, "_codecs.encode");
        const std::string enc = text_of(a[1], "encoding");
        STRATA_CHECK(enc == "latin1" || enc == "latin-1", source_, ": _codecs.encode with encoding '", enc,
                     "' is not allowed (expected latin1)");
        Ref r = make(Kind::bytes);
        r->s = latin1(text_of(a[0], "_codecs.encode text"));
        return r;
      }
      case Global::frombuffer: {  // _frombuffer(buffer, dtype, shape, order)
        expect_args(a, 4, "numpy's _frombuffer");
        Ref r = make(Kind::array);
        r->s = expect_kind(a[0], Kind::bytes, "_frombuffer buffer")->s;
        r->dtype = expect_kind(a[1], Kind::dtype, "_frombuffer dtype");
        r->shape = shape_of(a[2]);
        r->fortran = text_of(a[3], "_frombuffer order") == "F";
        r->built = true;
        return r;
      }
      case Global::ndarray: break;
    }
    throw Error(source_ + ": pickle calls numpy.ndarray directly, which NumPy's pickles never do");
  }

  void build(const Ref& target, const Ref& state) {
    if (target->kind == Kind::dtype) {  // (version, byteorder, subarray, names, fields, elsize, alignment, flags)
      expect_kind(state, Kind::tuple, "dtype state");
      STRATA_CHECK(state->items.size() >= 2, source_, ": pickled dtype state is too short");
      const std::string order = text_of(state->items[1], "dtype byte order");
      STRATA_CHECK(order.size() == 1, source_, ": pickled dtype has byte order '", order, "'");
      target->order = order[0];
      return;
    }
    STRATA_CHECK(target->kind == Kind::array && !target->built, source_, ": pickle BUILDs a ", kind_name(target->kind),
                 ", expected a new ndarray");
    // (version, shape, dtype, is_fortran, data): data is raw bytes, or a list for object arrays.
    expect_kind(state, Kind::tuple, "ndarray state");
    STRATA_CHECK(state->items.size() == 5, source_, ": pickled ndarray state has ", state->items.size(),
                 " items, expected 5");
    const auto& s = state->items;
    target->shape = shape_of(s[1]);
    target->dtype = expect_kind(s[2], Kind::dtype, "ndarray dtype");
    target->fortran = expect_kind(s[3], Kind::boolean, "ndarray is_fortran")->i != 0;
    if (s[4]->kind == Kind::list) adopt(target, s[4]->items.begin(), s[4]->items.end());
    else target->s = text_of(s[4], "ndarray data");
    target->built = true;
  }

  std::string_view b_;
  const std::string& source_;
  size_t pos_ = 0;
  std::vector<Ref> stack_;
  std::vector<size_t> marks_;
  std::map<uint64_t, Ref> memo_;
  std::deque<Obj> arena_;  // every object made; a deque never moves them
};

Tensor to_tensor(const Ref& a, const std::string& where) {
  STRATA_CHECK(a->kind == Kind::array && a->built, where, " is a ", kind_name(a->kind), ", expected a numeric ndarray");
  NpyHeader h;
  // NumPy pickles a dtype as its kind ("f4") and byte order ('<', '|', '=' native).
  const char order = a->dtype->order == '=' ? '<' : a->dtype->order;
  h.descr = std::string(1, order) + a->dtype->s;
  h.shape = a->shape;
  h.fortran_order = a->fortran;
  parse_npy_descr(h, where);
  return npy_array(h, a->s, where);
}

}  // namespace

std::vector<Tensor> unpickle_arrays(std::string_view bytes, const std::string& source) {
  Unpickler unpickler(bytes, source);  // owns every object until the arrays are copied out
  const Ref root = unpickler.run();
  std::vector<Ref> elements;
  if (root->kind == Kind::list) {
    elements = root->items;
  } else if (root->kind == Kind::array && root->built && root->dtype->s.rfind("O", 0) == 0) {
    STRATA_CHECK(root->shape.size() == 1, source, ": pickled object array has shape ", Shape(root->shape).str(),
                 ", expected one dimension");
    STRATA_CHECK(static_cast<int64_t>(root->items.size()) == root->shape[0], source, ": pickled object array of shape ",
                 Shape(root->shape).str(), " holds ", root->items.size(), " elements");
    elements = root->items;
  } else {
    return {to_tensor(root, source)};
  }
  std::vector<Tensor> out;
  for (size_t i = 0; i < elements.size(); ++i) out.push_back(to_tensor(elements[i], source + ": element " + std::to_string(i)));
  return out;
}

}  // namespace strata::io
