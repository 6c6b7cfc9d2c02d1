// What a hub URL names: Hub::open takes "postgresql://..." and "postgres://..." for a PostgreSQL
// database and anything else for a SQLite file ("sqlite://PATH", or the path itself).
#pragma once
#include <optional>
#include <string>

namespace strata::hub {

// The SQLite file `url` names; nothing for a PostgreSQL URL.
std::optional<std::string> sqlite_file(const std::string& url);

}  // namespace strata::hub
