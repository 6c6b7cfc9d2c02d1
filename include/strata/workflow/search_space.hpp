// SearchSpace: the hyper-parameters a search varies, declared in JSON, and the configurations
// drawn from it: every combination (grid) or seeded random samples.
//   {"lr":    {"type": "float", "min": 1e-4, "max": 1, "log": true, "steps": 5},
//    "units": {"type": "int", "min": 16, "max": 256, "log": true},
//    "act":   {"choices": ["relu", "tanh"]}}
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace strata::workflow {

struct SearchDimension {
  enum class Type { choice, integer, real };
  std::string name{};
  Type type = Type::choice;
  std::vector<nlohmann::json> choices{};  // choice
  double min = 0, max = 0;              // integer and real ranges, both ends included
  bool log = false;                     // sample (and grid) uniformly in log space; needs min > 0
  int64_t steps = 0;                    // grid points (real: required for a grid; integer: 0 = every value)
};

class SearchSpace {
 public:
  // Throws strata::Error naming the parameter for an unknown type or field, an empty choice
  // list, min > max, or a log scale over values <= 0.
  static SearchSpace from_json(const nlohmann::json& space);

  // How many configurations grid() makes (at most), counted without making them. Throws
  // LimitError above limits().max_plan_tasks.
  uint64_t grid_size() const;
  // Every combination; parameters in name order, the last varying fastest. Throws when a real
  // range has no "steps", LimitError when there are more than limits().max_plan_tasks.
  std::vector<nlohmann::json> grid() const;
  // n configurations drawn independently; the same seed gives the same ones. Throws LimitError
  // when n is above limits().max_plan_tasks.
  std::vector<nlohmann::json> sample(int64_t n, uint64_t seed) const;

  const std::vector<SearchDimension>& dimensions() const { return dims_; }

 private:
  std::vector<SearchDimension> dims_;
};

}  // namespace strata::workflow
