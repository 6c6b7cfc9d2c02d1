// .npy files through io's parser (io/npy_format.hpp), which .npz uses too. A standalone .npy may
// come from anywhere NumPy runs, so this reader also takes the two layouts io::npy_array refuses
// inside TensorLayer's archives: Fortran order and big-endian dtypes.
#include "strata/data/npy.hpp"

#include <algorithm>
#include <fstream>
#include <numeric>

#include "file_bytes.hpp"
#include "strata/io/npy_format.hpp"
#include "strata/ops/shape.hpp"

namespace strata::data {

Tensor read_npy(const std::string& path) {
  const std::vector<unsigned char> file = detail::read_file_bytes(path, "read_npy");
  const std::string_view bytes(reinterpret_cast<const char*>(file.data()), file.size());
  const std::string source = "read_npy: " + path;
  const io::NpyHeader header = io::parse_npy_header(bytes, source);

  // Fortran order is C order of the reversed shape, transposed back below.
  io::NpyHeader stored = header;
  stored.fortran_order = false;
  stored.big_endian = false;  // swapped below
  if (header.fortran_order) std::reverse(stored.shape.begin(), stored.shape.end());
  Tensor t = io::npy_array(stored, bytes.substr(header.data_offset), source);
  const size_t item = itemsize(t.dtype());
  if (header.big_endian && item > 1) {
    auto* p = static_cast<unsigned char*>(t.raw_data());
    for (int64_t i = 0; i < t.numel(); ++i) std::reverse(p + i * item, p + (i + 1) * item);
  }
  if (header.fortran_order && t.dim() > 1) {
    std::vector<int64_t> order(t.dim());
    std::iota(order.rbegin(), order.rend(), 0);
    t = contiguous(permute(t, Shape(order)));
  }
  return t;
}

void write_npy(const std::string& path, const Tensor& tensor) {
  STRATA_CHECK(tensor.defined(), "write_npy: ", path, ": the tensor is undefined");
  const std::string bytes = io::encode_npy(tensor);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  STRATA_CHECK(out.good(), "write_npy: cannot open ", path, " for writing");
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  STRATA_CHECK(out.good(), "write_npy: error while writing ", path);
}

}  // namespace strata::data
