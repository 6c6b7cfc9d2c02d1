// The op conformance table (after ggml's test-backend-ops). Each op family's test file adds
// cases with STRATA_CONFORMANCE_CASES; conformance_test.cpp runs every op's cases in every mode
// (gradient vs finite differences, second-order gradient, float32 forward vs float64) on every
// backend, one CTest test per (op, mode, backend), and fails when an op of the table in
// strata/ops/registry.hpp has no case.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "strata/strata.hpp"

namespace strata::testing {

struct OpCase {
  std::string op;              // the registered op name this case covers
  std::vector<Tensor> inputs;  // float64 inputs (integer ones, e.g. indices, are passed as they are)
  std::function<Tensor(const std::vector<Tensor>&)> fn;
  std::string label = "";      // what is special about this case ("broadcast", "non-contiguous", ...)
  double tolerance = 1e-6;     // on |analytic - numeric| / max(1, |numeric|)
  double eps = 1e-6;           // finite-difference step (larger for ops that round through float32)
  double float32_tolerance = 1e-4;  // float32 forward vs float64, on |f32 - f64| / max(1, |f64|)
  // False where the op's second derivative is knowingly not exact (the label says where).
  bool second_order = true;
};

using CaseMaker = std::function<std::vector<OpCase>(Generator&)>;

int add_cases(const char* group, CaseMaker maker);
const std::vector<std::pair<std::string, CaseMaker>>& all_case_makers();

// Ops outside the op table (strata/ops/registry.hpp lists the differentiable ops) that have
// cases here all the same: searches whose int64 results carry no gradient. Every backend's results
// are compared with the CPU's on them (tests/dispatch, tests/cuda), and their float32 shapes with
// float64's; they are not differentiated.
inline const std::vector<std::string>& index_result_ops() {
  static const std::vector<std::string> names = {"farthest_point_sample", "knn", "ball_query"};
  return names;
}

// Random float64 tensor in [low, high), seeded by `gen`.
Tensor rand64(Generator& gen, const Shape& shape, double low = -1, double high = 1);
// A random shape of 1..max_dims axes, each of size 1..max_size (size-1 axes exercise broadcasting).
Shape random_shape(Generator& gen, int max_dims = 3, int64_t max_size = 4);
// A non-contiguous float64 tensor of `shape` (a transposed view of a fresh tensor).
Tensor noncontiguous64(Generator& gen, const Shape& shape, double low = -1, double high = 1);

}  // namespace strata::testing

#define STRATA_CASES_CAT_INNER(a, b) a##b
#define STRATA_CASES_CAT(a, b) STRATA_CASES_CAT_INNER(a, b)
#define STRATA_CONFORMANCE_CASES(group)                                                                            \
  static std::vector<::strata::testing::OpCase> STRATA_CASES_CAT(conformance_cases_, group)(::strata::Generator&); \
  static const int STRATA_CASES_CAT(conformance_reg_, group) =                                                     \
      ::strata::testing::add_cases(#group, STRATA_CASES_CAT(conformance_cases_, group));                           \
  static std::vector<::strata::testing::OpCase> STRATA_CASES_CAT(conformance_cases_, group)(::strata::Generator & gen)
