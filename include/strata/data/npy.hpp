// NumPy .npy files (format versions 1.0 to 3.0): one array, read into a tensor or written from one.
#pragma once
#include <string>

#include "strata/core/tensor.hpp"

namespace strata::data {

// Reads dtypes float32/float64/int64/int32/uint8/bool ('<f4', '<f8', '<i8', '<i4', '|u1', '|b1',
// and big-endian '>' forms), C or Fortran order; the tensor is contiguous row-major. Throws
// strata::Error naming the file for a bad magic string or header, an unsupported dtype, data
// shorter or longer than the shape says, and bool bytes other than 0 and 1 (io/npy_format.hpp's
// parser and checks, which .npz uses too).
Tensor read_npy(const std::string& path);

// Writes `tensor` (any strides) as format version 1.0, little-endian, C order, so that
// numpy.load reads it. Throws strata::Error when the file cannot be written.
void write_npy(const std::string& path, const Tensor& tensor);

}  // namespace strata::data
