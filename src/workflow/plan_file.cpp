// Plan files: the task list itself, or a search or cross-validation spec expanded into its plan.
#include "strata/workflow/plan_file.hpp"

#include <nlohmann/json.hpp>

#include "strata/core/error.hpp"
#include "strata/core/limits.hpp"
#include "strata/workflow/cross_validation.hpp"
#include "strata/workflow/search.hpp"

namespace strata::workflow {

using nlohmann::json;

Plan parse_plan_file(const std::string& text) {
  check_json_depth(text, "plan file");
  const json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  const bool search = j.is_object() && j.contains("search");
  const bool cv = j.is_object() && j.contains("cross_validation");
  if (!search && !cv) return Plan::from_json(text);  // its errors cover invalid JSON and anything else
  const std::string form = search ? "search" : "cross_validation";
  for (const auto& [key, value] : j.items())
    STRATA_CHECK(key == form, "plan file: a ", form, " file holds only \"", form, "\", got also \"", key, "\"");
  return search ? search_plan(SearchSpec::from_json(j[form]))
                : cross_validation_plan(CrossValidationSpec::from_json(j[form]));
}

}  // namespace strata::workflow
