// A command that only reads a hub (strata hub's queries and exports, strata serve, strata ui)
// needs one that exists: Hub::open creates a SQLite hub where a path holds none, so a mistyped
// --hub path would leave an empty database behind and serve or show nothing, without a word.
// PostgreSQL URLs name a server's database, which Hub::open never creates.
#pragma once
#include <filesystem>
#include <string>

#include "strata/core/error.hpp"
#include "strata/hub/hub_url.hpp"

namespace strata::cli {

inline void require_existing_hub(const std::string& url) {
  if (const auto path = hub::sqlite_file(url))
    STRATA_CHECK(std::filesystem::exists(*path), "no hub at '", *path, "' (give its path or URL with --hub)");
}

}  // namespace strata::cli
