// Writes the protocol-3 pickle NumPy produces for a 1-D object array of ndarrays, opcode for
// opcode (without its memo, which readers do not need).
#include <cstring>

#include "strata/core/error.hpp"
#include "strata/io/npy_format.hpp"
#include "strata/io/pickle.hpp"

namespace strata::io {
namespace {

class PickleWriter {
 public:
  std::string out;

  void op(char c) { out += c; }
  void le(uint64_t v, int n) {
    for (int i = 0; i < n; ++i) out += static_cast<char>((v >> (8 * i)) & 0xff);
  }
  void integer(int64_t v) {
    if (v >= 0 && v < 256) {
      op('K');  // BININT1
      le(v, 1);
    } else if (v >= 0 && v < 65536) {
      op('M');  // BININT2
      le(v, 2);
    } else if (v >= INT32_MIN && v <= INT32_MAX) {
      op('J');  // BININT
      le(static_cast<uint32_t>(v), 4);
    } else {
      op('\x8a');  // LONG1
      le(8, 1);
      le(static_cast<uint64_t>(v), 8);
    }
  }
  void text(const std::string& s) {
    op('X');  // BINUNICODE
    le(s.size(), 4);
    out += s;
  }
  void bytes(const char* p, size_t n) {
    STRATA_CHECK(n <= 0xffffffffu, "pickle_arrays: an array of ", n, " bytes is over protocol 3's 4 GiB limit");
    if (n < 256) {
      op('C');  // SHORT_BINBYTES
      le(n, 1);
    } else {
      op('B');  // BINBYTES
      le(n, 4);
    }
    out.append(p, n);
  }
  void tuple_of_ints(const std::vector<int64_t>& v) {
    if (v.size() > 3) op('(');
    for (int64_t x : v) integer(x);
    static constexpr char kTupleOps[] = {')', '\x85', '\x86', '\x87'};  // EMPTY_TUPLE, TUPLE1..3
    op(v.size() > 3 ? 't' : kTupleOps[v.size()]);
  }
  // numpy.dtype(kind, False, True) with BUILD state (3, order, None, None, None, -1, -1, flags).
  void dtype(const std::string& kind, const char* order, int flags) {
    out += "cnumpy\ndtype\n";
    text(kind);
    out += "\x89\x88\x87R(";  // NEWFALSE NEWTRUE TUPLE3 REDUCE MARK
    integer(3);
    text(order);
    out += "NNN";
    integer(-1);
    integer(-1);
    integer(flags);
    out += "tb";  // TUPLE BUILD
  }
  // _reconstruct(ndarray, (0,), b'b') then MARK 1, shape, <dtype>: the start of every ndarray.
  void array_start(const std::vector<int64_t>& shape) {
    out += "cnumpy.core.multiarray\n_reconstruct\ncnumpy\nndarray\n";
    tuple_of_ints({0});
    bytes("b", 1);
    out += "\x87R(";  // TUPLE3 REDUCE MARK
    integer(1);
    tuple_of_ints(shape);
  }
};

}  // namespace

std::string pickle_arrays(const std::vector<Tensor>& arrays) {
  PickleWriter w;
  w.out = "\x80\x03";  // PROTO 3
  w.array_start({static_cast<int64_t>(arrays.size())});
  w.dtype("O8", "|", 63);  // NumPy's object dtype flags
  w.out += "\x89](";       // NEWFALSE (C order), EMPTY_LIST, MARK
  for (size_t i = 0; i < arrays.size(); ++i) {
    STRATA_CHECK(arrays[i].defined(), "pickle_arrays: array ", i, " is undefined");
    const Tensor c = arrays[i].is_contiguous() ? arrays[i] : arrays[i].contiguous();
    const std::string descr = npy_descr(c.dtype());
    w.array_start(c.shape().vec());
    w.dtype(descr.substr(1), descr.substr(0, 1).c_str(), 0);
    w.op('\x89');  // NEWFALSE: C order
    w.bytes(static_cast<const char*>(c.raw_data()), c.nbytes());
    w.out += "tb";  // TUPLE BUILD
  }
  w.out += "etb.";  // APPENDS, TUPLE (the object array's state), BUILD, STOP
  return w.out;
}

}  // namespace strata::io
