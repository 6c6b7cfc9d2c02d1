// The hub's tables, created and migrated by the hub itself; schema_version records how far.
#pragma once
#include <cstdint>

#include "database.hpp"

namespace strata::hub::detail {

// The schema version this build knows: the number of migrations in schema.cpp.
int64_t schema_version();

// Brings the database to schema_version() in one write transaction, so several processes opening
// a fresh hub at once do not race: the first creates, the others find it done. Refuses a
// database whose schema is newer than this build knows.
void migrate(Database& db);
// Applies the migrations up to `version` only: how the schema fixtures of earlier versions are
// made (tests/hub/fixtures/make_schema_fixtures.cpp).
void migrate(Database& db, int64_t version);

}  // namespace strata::hub::detail
