// The conformance table's registry and input helpers (ops/conformance.hpp), apart from the tests
// that walk it, so that other test programs (tests/dispatch) can run the same table.
#include <random>

#include "ops/conformance.hpp"

namespace strata::testing {

int add_cases(const char* group, CaseMaker maker) {
  const_cast<std::vector<std::pair<std::string, CaseMaker>>&>(all_case_makers()).emplace_back(group, std::move(maker));
  return 0;
}

const std::vector<std::pair<std::string, CaseMaker>>& all_case_makers() {
  static std::vector<std::pair<std::string, CaseMaker>> makers;
  return makers;
}

Tensor rand64(Generator& gen, const Shape& shape, double low, double high) {
  return uniform(shape, low, high, kFloat64, &gen);
}

Shape random_shape(Generator& gen, int max_dims, int64_t max_size) {
  std::uniform_int_distribution<int> dims(1, max_dims);
  std::uniform_int_distribution<int64_t> size(1, max_size);
  Shape s;
  for (int d = dims(gen.engine()); d > 0; --d) s.push_back(size(gen.engine()));
  return s;
}

Tensor noncontiguous64(Generator& gen, const Shape& shape, double low, double high) {
  if (shape.size() < 2) return slice(rand64(gen, {shape.numel() * 2}, low, high), 0, 0, shape.numel() * 2, 2);
  Shape swapped = shape;
  std::swap(swapped[0], swapped[1]);
  return transpose(rand64(gen, swapped, low, high), 0, 1);
}

}  // namespace strata::testing
