// Many rows in few statements: one INSERT per tasks-table round trip cost 150 us on PostgreSQL
// and, on SQLite, a 64 KiB statement-journal page per statement, so a plan of 100,000 tasks
// took seconds and wrote gigabytes. A BatchInsert sends up to `capacity` rows per statement.
#pragma once
#include <cstddef>
#include <deque>
#include <string>

#include "strata/hub/sql.hpp"

namespace strata::workflow::detail {

class BatchInsert {
 public:
  // `head`: "INSERT INTO t (a, b, c) VALUES "; `row`: one row's tuple, "(?, ?, 'pending')".
  // Rows are given by their parameters (one per `?` of `row`), in order.
  BatchInsert(hub::Database& db, std::string head, std::string row);
  ~BatchInsert() = default;
  BatchInsert(const BatchInsert&) = delete;
  BatchInsert& operator=(const BatchInsert&) = delete;

  // Appends one parameter of the current row (the row is complete after `row_params` of them).
  void add(hub::Param value);
  // Keeps text for a string_view parameter of the current row until that row is sent.
  std::string_view keep(std::string text);
  // Sends what is pending. Statements always carry a power-of-two number of rows, so a database
  // caches at most log2(capacity) + 1 statement texts per table, whatever the row counts.
  void flush();

 private:
  void send(size_t rows);
  std::string sql_for(size_t rows) const;

  hub::Database& db_;
  std::string head_, row_;
  size_t row_params_, capacity_;  // capacity: rows per statement, a power of two
  hub::Params pending_;
  std::deque<std::string> kept_;  // a deque: adding never moves the earlier strings
};

}  // namespace strata::workflow::detail
