#include "strata/hub/stored_json.hpp"

#include "strata/core/limits.hpp"

namespace strata::hub {

nlohmann::json stored_json(const std::string& text) {
  try {
    check_json_depth(text, "stored JSON");
  } catch (const LimitError&) {
    return text;
  }
  nlohmann::json value = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  return value.is_discarded() ? nlohmann::json(text) : value;
}

}  // namespace strata::hub
