// A grid search's plan of n independent trial tasks, each with its JSON config and a tag: the
// plan whose submission was quadratic (issue 43.1), shared by PlanScaling and bench_plan_submit.
#pragma once
#include <string>

#include "strata/workflow/plan.hpp"

namespace strata::workflow::testing {

inline Plan grid_plan(int n) {
  Plan plan("grid");
  for (int i = 0; i < n; ++i)
    plan.add({.kind = "trial", .params = R"({"config": {"lr": )" + std::to_string(i) + "}}",
              .name = "trial" + std::to_string(i), .tags = {"search"}});
  return plan;
}

}  // namespace strata::workflow::testing
