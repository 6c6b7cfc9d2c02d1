// .npz files as datasets: the archive and .npy decoding are io's (io::load_npz); this file adds
// look-up by name and the Dataset view.
#include "strata/data/npz.hpp"

#include "strata/core/error.hpp"
#include "strata/io/npz.hpp"

namespace strata::data {
namespace {

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out.empty() ? "nothing" : out;
}

}  // namespace

bool NpzArrays::contains(const std::string& name) const {
  for (const auto& [n, t] : arrays)
    if (n == name) return true;
  return false;
}

const Tensor& NpzArrays::at(const std::string& name) const {
  for (const auto& [n, t] : arrays)
    if (n == name) return t;
  throw Error(path + ": no array named '" + name + "' (the file has: " + joined(names()) + ")");
}

std::vector<std::string> NpzArrays::names() const {
  std::vector<std::string> out;
  out.reserve(arrays.size());
  for (const auto& [n, t] : arrays) out.push_back(n);
  return out;
}

Dataset NpzArrays::dataset(const std::vector<std::string>& names) const {
  STRATA_CHECK(!names.empty(), path, ": dataset needs at least one array name");
  std::vector<Tensor> columns;
  for (const auto& name : names) {
    const Tensor& t = at(name);
    STRATA_CHECK(t.dim() >= 1, path, ": array '", name, "' is a scalar, expected one row per example");
    STRATA_CHECK(t.size(0) == at(names[0]).size(0), path, ": array '", name, "' has ", t.size(0),
                 " rows, array '", names[0], "' has ", at(names[0]).size(0));
    columns.push_back(t);
  }
  return TensorDataset(std::move(columns));
}

NpzArrays read_npz(const std::string& path) { return NpzArrays{path, io::load_npz(path)}; }

Dataset load_npz_dataset(const std::string& path, const std::string& x, const std::string& y) {
  return read_npz(path).dataset({x, y});
}

}  // namespace strata::data
