// What models and datasets share: a name with versions 1, 2, ... (never reused) in a project,
// each version pointing at one content-addressed blob.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "hub_state.hpp"
#include "strata/core/limits.hpp"

namespace strata::hub::detail {

// The tables of one kind of versioned thing: {"models", "model_names", "model"}.
struct VersionedTable {
  const char* table;
  const char* names_table;
  const char* noun;
};
inline constexpr VersionedTable kModels{"models", "model_names", "model"};
inline constexpr VersionedTable kDatasets{"datasets", "dataset_names", "dataset"};

// "model \"mlp\" version 3" / "... version latest", for messages.
std::string describe(const VersionedTable& t, const std::string& name, int64_t version);

// Inside a write transaction: the next version of `name`. Allocated in the same transaction as
// the row that uses it, so a failed save burns no number.
int64_t allocate_version(Database& db, const VersionedTable& t, int64_t project_id, const std::string& name);

// A JSON column of a model or dataset row (metrics, tags, values) as the type the hub writes
// there. Rows may come from any client: a text that is not JSON, nests past max_json_depth or
// holds another shape is a strata::Error naming the row and the column, not nlohmann's exception.
template <class T>
T stored_column(const std::string& text, const VersionedTable& t, const std::string& name, int64_t version,
                const char* column) {
  std::string why;
  try {
    check_json_depth(text, column);
    return nlohmann::json::parse(text).get<T>();
  } catch (const LimitError& e) {
    why = e.what();
  } catch (const nlohmann::json::exception& e) {
    why = e.what();
  }
  throw Error("hub: " + describe(t, name, version) + ": its " + column + " column does not hold what the hub writes: " +
              why);
}

// "latest" -> kLatest, "7" -> 7; anything else is an error naming `function` and `name`.
int64_t parse_version(std::string_view text, const char* function, const std::string& name);

// In one write transaction: deletes version `version` of `name` (kLatest: the newest; nullopt:
// every version), runs `also` ("UPDATE ... WHERE x = ?", may be null) with each deleted id,
// then deletes each blob no one uses any more. Returns the number of versions deleted.
int64_t delete_versions(HubState& s, const VersionedTable& t, const std::string& name,
                        const std::optional<int64_t>& version, const char* also = nullptr);

}  // namespace strata::hub::detail
