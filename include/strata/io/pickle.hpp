// The pickles NumPy writes for object arrays, as in TensorLayer's save_npz (a list of arrays
// under `params`). The reader is a small stack machine over a fixed set of opcodes; it calls
// nothing: the only globals it accepts are NumPy's array and dtype constructors
// (numpy.core.multiarray._reconstruct, numpy.ndarray, numpy.dtype, numpy.core.numeric._frombuffer,
// _codecs.encode, also under numpy._core), which it interprets itself.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "strata/core/tensor.hpp"

namespace strata::io {

// The arrays of a pickled 1-D object array (or a list) of numeric ndarrays, in order. Throws
// strata::Error naming `source` for any other opcode or global, a malformed stream, an element
// that is not a C-order little-endian f4/f8/i4/i8/u1/b1 array, or data that does not match
// its shape. Never allocates more than the input's size.
std::vector<Tensor> unpickle_arrays(std::string_view bytes, const std::string& source);

// A protocol-3 pickle of a 1-D object array holding `arrays` (any strides), byte-compatible
// with what NumPy writes, so numpy.load(..., allow_pickle=True) reads it.
std::string pickle_arrays(const std::vector<Tensor>& arrays);

}  // namespace strata::io
