// A MATLAB level-5 MAT-file (data/mat_file.hpp): plain and zlib-compressed elements, cells and
// structs nested, each numeric array read whole. The seeds are scipy's files from
// tests/data/tl_fixtures (every class and container, compressed and not, SVHN and MPII layouts).
#include "strata/data/mat_file.hpp"
#include "fuzz_input.hpp"

namespace {

// The tree is as deep as read_mat allowed (max_depth), so recursion here is bounded too.
void use_value(const strata::data::MatValue& v) {
  if (v.array.defined()) strata::fuzz::use_every_byte(v.array);
  for (const auto& c : v.cells) use_value(c);
  for (const auto& f : v.fields) use_value(f);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string& path = strata::fuzz::input_file(data, size, ".mat");
  strata::fuzz::read_or_refuse([&] {
    for (const auto& [name, value] : strata::data::read_mat(path).variables) use_value(value);
  });
  return 0;
}
