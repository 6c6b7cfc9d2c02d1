// The TensorLayer 2.2.5 fixtures of tests/vision/test_prepro_*.cpp
// (fixtures/tl_prepro_<family>.npz, written by make_tl_prepro_fixtures.py), read once per family.
#pragma once
#include <array>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "strata/data/npz.hpp"

namespace strata::testing {

inline const data::NpzArrays& tl_prepro_fixture(const std::string& family) {
  static std::mutex mutex;
  static std::map<std::string, data::NpzArrays> loaded;
  const std::lock_guard<std::mutex> lock(mutex);
  auto it = loaded.find(family);
  if (it == loaded.end())
    it = loaded
             .emplace(family,
                      data::read_npz(std::string(STRATA_TESTS_DIR) + "/vision/fixtures/tl_prepro_" + family + ".npz"))
             .first;
  return it->second;
}

// An [n, 2] array as n pairs (points of contours, warps and key points alike).
inline std::vector<std::array<double, 2>> tl_prepro_pairs(const Tensor& t) {
  const std::vector<double> v = t.to_vector<double>();
  std::vector<std::array<double, 2>> pairs;
  for (size_t i = 0; i + 1 < v.size(); i += 2) pairs.push_back({v[i], v[i + 1]});
  return pairs;
}

}  // namespace strata::testing
