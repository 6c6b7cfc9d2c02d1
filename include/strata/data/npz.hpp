// NumPy .npz archives as training data: the named arrays of one file (numpy.savez /
// savez_compressed), and a Dataset of (x, y) rows taken from two of them.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "strata/core/tensor.hpp"
#include "strata/data/dataset.hpp"

namespace strata::data {

struct NpzArrays {
  std::string path;                                    // the file, for error messages
  std::vector<std::pair<std::string, Tensor>> arrays;  // by name, in archive order (io::NamedTensors)

  bool contains(const std::string& name) const;
  // Throws strata::Error naming the file, the name and the names the file has.
  const Tensor& at(const std::string& name) const;
  std::vector<std::string> names() const;
  // Examples {row of names[0], row of names[1], ...} (axis 0 sliced); the arrays must be at
  // least one-dimensional and agree on their first dimension (else an error naming the file).
  Dataset dataset(const std::vector<std::string>& names = {"x", "y"}) const;
};

// Reads every array of a .npz file with io::load_npz (stored or deflated entries; f4 f8 i4 i8
// u1 b1, little-endian, C order). Throws strata::Error naming the file for a missing,
// truncated or corrupt archive or an unsupported array.
NpzArrays read_npz(const std::string& path);

// read_npz(path).dataset({x, y}): the common case of a file with features and labels.
Dataset load_npz_dataset(const std::string& path, const std::string& x = "x", const std::string& y = "y");

}  // namespace strata::data
