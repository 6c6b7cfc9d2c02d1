// JSON text read back from the hub (a run's config, an event's payload, a task's result) as a
// value to show. The row may have been written by any client, so it is outside input: a text that
// is not JSON, or that nests deeper than limits().max_json_depth, is kept as the string it is
// instead of being parsed (and then copied and dumped, both recursive once per level).
#pragma once
#include <string>

#include <nlohmann/json.hpp>

namespace strata::hub {

nlohmann::json stored_json(const std::string& text);

}  // namespace strata::hub
