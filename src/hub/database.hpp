// The hub's backends: opening a SQLite or PostgreSQL connection behind the SQL interface of
// strata/hub/sql.hpp (Database, Row, Param ...), which src/hub uses by these detail names.
#pragma once
#include <memory>
#include <string>

#include "strata/hub/sql.hpp"

namespace strata::hub::detail {

using hub::BusyError;
using hub::Bytes;
using hub::Database;
using hub::Dialect;
using hub::Param;
using hub::Params;
using hub::Row;
using hub::RowFn;

// Opens "postgresql://..." / "postgres://..." URLs with PostgreSQL and anything else as a
// SQLite file (hub::sqlite_file, strata/hub/hub_url.hpp). Never puts a password in an error message.
std::unique_ptr<Database> open_database(const std::string& url, int busy_budget_ms);
std::unique_ptr<Database> open_sqlite(const std::string& path, int busy_budget_ms);
std::unique_ptr<Database> open_postgres(const std::string& url, int busy_budget_ms);
// The URL with any password replaced by "***", for messages.
std::string redact_url(const std::string& url);
// The first password redact_url hides ("" when none), so that messages can hide it too.
std::string password_in(const std::string& url);

}  // namespace strata::hub::detail
