// A plan file, as `strata plan submit FILE.json` reads it: a plan's tasks, a hyper-parameter
// search or a cross-validation, told apart by the top-level field:
//   {"name": "...", "tasks": [...]}   the tasks themselves (Plan::from_json)
//   {"search": {...}}                 SearchSpec::from_json's fields, made into search_plan
//   {"cross_validation": {...}}       CrossValidationSpec::from_json's fields, made into cross_validation_plan
#pragma once
#include <string>

#include "strata/workflow/plan.hpp"

namespace strata::workflow {

// Throws strata::Error naming the field and the spec for what does not fit any of the three.
Plan parse_plan_file(const std::string& text);

}  // namespace strata::workflow
