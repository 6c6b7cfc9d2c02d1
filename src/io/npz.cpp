// .npz: ZIP entries named "<name>.npy"; object arrays hold a pickle after their .npy header.
#include "strata/io/npz.hpp"

#include <set>

#include "strata/core/error.hpp"
#include "strata/io/npy_format.hpp"
#include "strata/io/pickle.hpp"
#include "zip_archive.hpp"

namespace strata::io {
namespace {

constexpr const char* kSuffix = ".npy";

std::string array_name(const std::string& entry) {
  const std::string suffix = kSuffix;
  if (entry.size() > suffix.size() && entry.compare(entry.size() - suffix.size(), suffix.size(), suffix) == 0)
    return entry.substr(0, entry.size() - suffix.size());
  return entry;  // NumPy's NpzFile also keys entries that lack the suffix by their full name
}

}  // namespace

NamedTensors load_npz(const std::string& path) {
  detail::ZipReader zip(path);
  NamedTensors out;
  std::set<std::string> seen;
  for (const auto& e : zip.entries()) {
    const std::string name = array_name(e.name);
    STRATA_CHECK(seen.insert(name).second, path, ": array '", name, "' appears twice");
    out.emplace_back(name, decode_npy(zip.read(e), path + ": array '" + name + "'"));
  }
  return out;
}

std::vector<Tensor> load_npz_list(const std::string& path, const std::string& key) {
  detail::ZipReader zip(path);
  std::string names;
  for (const auto& e : zip.entries()) {
    if (array_name(e.name) != key) {
      names += (names.empty() ? "" : ", ") + array_name(e.name);
      continue;
    }
    const std::string where = path + ": array '" + key + "'";
    const std::string bytes = zip.read(e);
    const NpyHeader h = parse_npy_header(bytes, where);
    if (!h.object) {
      // NumPy stacks a list of same-shaped arrays into one array: the list is its rows.
      const Tensor all = npy_array(h, std::string_view(bytes).substr(h.data_offset), where);
      STRATA_CHECK(all.dim() >= 1, where, ": a scalar, expected a list of arrays");
      std::vector<Tensor> rows;
      for (int64_t i = 0; i < all.size(0); ++i) rows.push_back(all.select(0, i).contiguous());
      return rows;
    }
    STRATA_CHECK(h.shape.size() == 1, where, ": object array of shape ", Shape(h.shape).str(),
                 ", expected a list (one dimension)");
    std::vector<Tensor> list = unpickle_arrays(std::string_view(bytes).substr(h.data_offset), where);
    STRATA_CHECK(static_cast<int64_t>(list.size()) == h.shape[0], where, ": header says ", h.shape[0],
                 " arrays, the pickle holds ", list.size());
    return list;
  }
  throw Error(path + ": no array named '" + key + "' (the file has: " + (names.empty() ? "nothing" : names) +
              "); is it a TensorLayer save_npz file?");
}

void save_npz(const std::string& path, const NamedTensors& tensors, bool compress) {
  std::set<std::string> seen;
  for (const auto& [name, t] : tensors) {
    STRATA_CHECK(!name.empty(), "save_npz: ", path, ": an array has an empty name");
    STRATA_CHECK(seen.insert(name).second, "save_npz: ", path, ": array name '", name, "' appears twice");
    STRATA_CHECK(t.defined(), "save_npz: ", path, ": array '", name, "' is undefined");
  }
  detail::ZipWriter zip(path);
  for (const auto& [name, t] : tensors) zip.add(name + kSuffix, encode_npy(t), compress);
  zip.finish();
}

void save_npz_list(const std::string& path, const std::vector<Tensor>& tensors, const std::string& key) {
  detail::ZipWriter zip(path);
  zip.add(key + kSuffix, encode_npy_header("|O", {static_cast<int64_t>(tensors.size())}) + pickle_arrays(tensors), false);
  zip.finish();
}

}  // namespace strata::io
