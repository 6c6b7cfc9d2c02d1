// The hub's tables, created and migrated by the hub itself; schema_version records how far.
#pragma once
#include "database.hpp"

namespace strata::hub::detail {

inline constexpr int kSchemaVersion = 1;

// Brings the database to kSchemaVersion in one write transaction, so several processes opening
// a fresh hub at once do not race: the first creates, the others find it done. Refuses a
// database whose schema is newer than this build knows.
void migrate(Database& db);

}  // namespace strata::hub::detail
