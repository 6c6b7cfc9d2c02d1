// MATLAB level-5 MAT-files (the format of `save -v7` and scipy.io.savemat; MathWorks' "MAT-File
// Format" document): numeric, logical and char arrays, cell arrays and structs, plain or
// miCOMPRESSED (zlib). The loaders of SVHN (.mat images) and MPII pose (the RELEASE struct) read
// through it. v7.3 files are HDF5 and are refused with a message that says so.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "strata/core/tensor.hpp"

namespace strata::data {

// One MATLAB value. `dims` are MATLAB's sizes (at least two); elements of cells and structs are
// in MATLAB's column-major order, as scipy.io.loadmat's arrays index them with [i, j].
struct MatValue {
  enum class Kind { numeric, text, cell, structure, unsupported };
  Kind kind = Kind::numeric;
  std::string class_name;  // MATLAB's class: "double", "uint8", "char", "cell", "struct", ...
  std::vector<int64_t> dims;
  // numeric (logical included): shape == dims, row-major (scipy's array, same indices). double
  // -> float64, single -> float32, uint8 -> uint8, logical -> bool, int8/int16/uint16/int32 ->
  // int32, uint32/int64/uint64 -> int64 (a uint64 above 2^63 - 1 is refused).
  Tensor array;
  std::vector<std::string> rows;         // text: one UTF-8 string per row (MATLAB char matrices pad rows)
  std::vector<MatValue> cells;           // cell: numel() values, column-major
  std::vector<std::string> field_names;  // structure
  std::vector<MatValue> fields;          // structure: element e's field f at e * field_names.size() + f

  int64_t numel() const;
  bool empty() const { return numel() == 0; }
  // The text of a one-row char array ("" for an empty one); an error for anything else.
  std::string text() const;
  bool has_field(const std::string& name) const;
  // Struct element `element`'s field; an error naming the field and the fields there are.
  const MatValue& field(const std::string& name, int64_t element = 0) const;
  // Cell `i` (column-major); an error when out of range or not a cell.
  const MatValue& cell(int64_t i) const;
  // The one number of a one-element numeric array, as double.
  double scalar() const;
};

struct MatFileOptions {
  int max_depth = 64;  // nesting of cells and structs inside one another
};

struct MatFile {
  std::string path;                                         // for error messages
  std::vector<std::pair<std::string, MatValue>> variables;  // in file order

  bool contains(const std::string& name) const;
  // An error naming the file, the variable and the variables the file has.
  const MatValue& at(const std::string& name) const;
};

// Every variable of a level-5 MAT-file. The bytes are hostile: each size is checked against the
// bytes present, inflated data is bounded by limits().max_tensor_bytes, nesting by max_depth;
// errors (strata::Error) name the file and what was wrong. Values of classes with no meaning
// here (objects, sparse, function handles) are kept as Kind::unsupported rather than refused.
MatFile read_mat(const std::string& path, const MatFileOptions& options = {});
MatFile parse_mat(std::span<const unsigned char> bytes, const std::string& name = "<memory>",
                  const MatFileOptions& options = {});

}  // namespace strata::data
