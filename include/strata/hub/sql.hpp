// The SQL interface of a hub's database: one connection, parameterised statements, rows streamed
// to a callback, and transactions retried with back-off while the database is busy. Statements
// are written once with `?` placeholders; a backend (SQLite, PostgreSQL) rewrites them for its
// dialect. The hub's own stores use it, and so does a module that keeps its own tables in a hub's
// database on the hub's connection (shared_connection.hpp: the workflow's task queue).
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "strata/core/error.hpp"

namespace strata::hub {

// A parameter that is bytes rather than text (BLOB in SQLite, bytea in PostgreSQL).
struct Bytes {
  std::string_view data;
};
using Param = std::variant<std::nullptr_t, int64_t, double, std::string_view, Bytes>;
using Params = std::vector<Param>;

// One result row, valid only inside the callback that receives it.
class Row {
 public:
  virtual ~Row() = default;
  virtual bool is_null(int col) const = 0;
  virtual int64_t integer(int col) const = 0;
  virtual double real(int col) const = 0;
  virtual std::string text(int col) const = 0;
  virtual std::string_view bytes(int col) const = 0;  // points into the backend's buffer
};
using RowFn = std::function<void(const Row&)>;

// Thrown by a backend when another connection holds the lock it needs; transaction() retries.
class BusyError : public Error {
 public:
  using Error::Error;
};

enum class Dialect { sqlite, postgres };

class Database {
 public:
  virtual ~Database() = default;
  virtual Dialect dialect() const = 0;
  // Runs one statement, passing each result row to `on_row` (when given).
  virtual void query(std::string_view sql, const Params& params, const RowFn& on_row) = 0;
  // Starts a transaction; `write` takes the write lock now (SQLite's BEGIN IMMEDIATE), so
  // that two writers never deadlock upgrading read locks.
  virtual void begin(bool write) = 0;
  virtual void commit() = 0;
  virtual void rollback() noexcept = 0;
  // A process-wide lock held until the transaction ends (PostgreSQL's advisory locks; SQLite's
  // write transaction already excludes other writers).
  virtual void lock_for_transaction(int64_t key) {}
  // PostgreSQL's LISTEN / NOTIFY, so that idle workers wake when work arrives rather than at
  // their next poll. notify: inside a transaction, delivered when it commits; nothing elsewhere.
  virtual void notify(const std::string& channel) {}
  // Waits up to `seconds` for a notification on `channel` (listening from the first call on),
  // true once it waited; false at once where the backend has none (SQLite): the caller polls.
  virtual bool wait_for_notification(const std::string& channel, double seconds) { return false; }

  void execute(std::string_view sql, const Params& params = {}) { query(sql, params, nullptr); }
  std::optional<int64_t> query_int(std::string_view sql, const Params& params = {});

  // Runs fn inside a transaction and commits; while the database is busy, rolls back, waits
  // (1 ms doubling to 200 ms, with jitter) and runs fn again, for up to `busy_budget_ms`.
  void transaction(bool write, const std::function<void()>& fn);
  // Inside transaction's fn: `settle` runs if this transaction ends in an error (after the
  // rollback, before the error goes on), to bring state outside the database in line with what
  // was stored. It must not throw. A failed COMMIT may still have committed (SQLite reports an
  // I/O error of the checkpoint that follows a commit), so `settle` asks the database again
  // rather than assume either outcome.
  void on_failure(std::function<void()> settle) { on_failure_.push_back(std::move(settle)); }
  int busy_budget_ms = 60'000;

 private:
  std::vector<std::function<void()>> on_failure_;
};

}  // namespace strata::hub
