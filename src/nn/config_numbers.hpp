// The numbers of a layer config read from outside (a whole-model file, a model row of the hub)
// are checked before the layer's factory sees them: a size field (units, n_filter, filter_size,
// stride, groups, ...) must be an integer in its range, every other number finite. One table
// names the size fields, so a layer whose config uses the usual names is covered when it lands.
// Ranges keep shape arithmetic (stride x size, dilation x kernel) inside int64; the memory the
// sizes ask for is bounded where weights are made (weight_budget.hpp).
#pragma once
#include <nlohmann/json.hpp>

namespace strata::nn::detail {

// Throws strata::Error naming the field by its path in the config ("options.groups") and the
// value that came. Nested layer configs (objects with a "class") are left to their own check.
void check_config_numbers(const nlohmann::json& config);

}  // namespace strata::nn::detail
