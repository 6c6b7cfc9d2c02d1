// NumPy .npz archives (numpy.savez / savez_compressed): a ZIP of .npy arrays, one per name.
// They are also TensorLayer's weight files: save_npz_dict writes weights by name, save_npz a
// list of arrays under "params" (a pickled object array, read here without running any code).
#pragma once
#include <string>
#include <vector>

#include "strata/io/safetensors.hpp"  // NamedTensors

namespace strata::io {

// Arrays by name ("x" for entry "x.npy"), in archive order. Reads stored and deflated entries;
// arrays must be little-endian, C order, f4 f8 i4 i8 u1 b1. Throws strata::Error naming the
// file and the problem for a truncated or corrupt archive (CRC), a size larger than the file
// can hold, an unsupported array, or an object array (see load_npz_list).
NamedTensors load_npz(const std::string& path);

// Writes numpy.savez's layout (numpy.savez_compressed's with `compress`); names get ".npy".
// This is also TensorLayer's save_npz_dict when the names are its weight names.
void save_npz(const std::string& path, const NamedTensors& tensors, bool compress = false);

// TensorLayer's save_npz: the list of arrays stored under `key`, in order (an object array, or
// the rows of an ordinary array, which is what NumPy makes of a list of same-shaped arrays).
std::vector<Tensor> load_npz_list(const std::string& path, const std::string& key = "params");
// Writes a list the way TensorLayer's save_npz does (np.savez(path, params=list)), so that
// tl.files.load_npz and load_and_assign_npz read it.
void save_npz_list(const std::string& path, const std::vector<Tensor>& tensors, const std::string& key = "params");

}  // namespace strata::io
