// The NumPy .npy format (versions 1.0, 2.0, 3.0): a magic string, a header that is a Python
// dict literal {'descr', 'fortran_order', 'shape'}, then the array's raw bytes. Shared by .npz
// (io/npz.hpp) and anything else that meets .npy bytes.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "strata/core/tensor.hpp"

namespace strata::io {

struct NpyHeader {
  std::string descr;           // as written: "<f4", "|b1", "|O", ...
  bool object = false;         // descr "|O": the data is a pickle (io/pickle.hpp), not raw bytes
  DType dtype = kFloat32;      // when !object
  bool big_endian = false;
  bool fortran_order = false;
  std::vector<int64_t> shape;
  size_t data_offset = 0;      // where the data starts in the bytes given to parse_npy_header
};

// Parses the magic string and header; does not look at the data. `source` names the input in
// errors. Throws strata::Error for a bad magic string, version, header, dtype (Strata reads
// f4 f8 i4 i8 u1 b1 and O) or a shape that is not a tuple of integers (its size is checked by
// npy_array, core/checked_size.hpp).
NpyHeader parse_npy_header(std::string_view bytes, const std::string& source);

// Fills header.object, dtype and big_endian from header.descr.
void parse_npy_descr(NpyHeader& header, const std::string& source);

// The array `header` describes from its raw bytes: little-endian, C order, a shape whose byte
// count neither overflows nor passes limits().max_tensor_bytes and matches the data exactly
// (checked before allocating); Fortran order, big-endian and object arrays are refused.
Tensor npy_array(const NpyHeader& header, std::string_view data, const std::string& source);

// A whole .npy, read with npy_array's rules: little-endian, C order, and a data size that matches the shape exactly;
// Fortran order, big-endian and object arrays are refused.
Tensor decode_npy(std::string_view bytes, const std::string& source);

// The header (magic, version 1.0, or 2.0 when the header needs it, padded so the data starts
// at a multiple of 64 like NumPy's) for an array of `descr` and `shape`.
std::string encode_npy_header(const std::string& descr, const std::vector<int64_t>& shape);
// A whole .npy of `tensor` (any strides).
std::string encode_npy(const Tensor& tensor);
// NumPy's descr for a dtype: "<f4", "<f8", "<i4", "<i8", "|u1", "|b1".
const char* npy_descr(DType dtype);

}  // namespace strata::io
