#include "batch_insert.hpp"

#include <algorithm>
#include <bit>

#include "strata/core/error.hpp"

namespace strata::workflow::detail {

namespace {
// Parameters per statement: under SQLite's default limit (32,766) and PostgreSQL's (65,535),
// and large enough that the round trip is a small part of a statement's cost.
constexpr size_t kParamsPerStatement = 8192;
}  // namespace

BatchInsert::BatchInsert(hub::Database& db, std::string head, std::string row)
    : db_(db),
      head_(std::move(head)),
      row_(std::move(row)),
      row_params_(static_cast<size_t>(std::count(row_.begin(), row_.end(), '?'))),
      capacity_(std::bit_floor(kParamsPerStatement / std::max<size_t>(1, row_params_))) {
  STRATA_CHECK(row_params_ >= 1, "BatchInsert: a row needs at least one parameter, got ", row_);
  pending_.reserve(capacity_ * row_params_);
}

void BatchInsert::add(hub::Param value) {
  pending_.push_back(std::move(value));
  if (pending_.size() == capacity_ * row_params_) send(capacity_);
}

std::string_view BatchInsert::keep(std::string text) { return kept_.emplace_back(std::move(text)); }

void BatchInsert::flush() {
  STRATA_CHECK(pending_.size() % row_params_ == 0, "BatchInsert: a row was left incomplete (",
               std::to_string(pending_.size() % row_params_), " of ", std::to_string(row_params_), " values)");
  size_t rows = pending_.size() / row_params_;
  while (rows > 0) {
    send(std::bit_floor(rows));
    rows = pending_.size() / row_params_;
  }
}

// Sends the first `rows` pending rows.
void BatchInsert::send(size_t rows) {
  const size_t n = rows * row_params_;
  if (n == pending_.size()) {
    db_.execute(sql_for(rows), pending_);
    pending_.clear();
  } else {
    hub::Params first(pending_.begin(), pending_.begin() + static_cast<std::ptrdiff_t>(n));
    db_.execute(sql_for(rows), first);
    pending_.erase(pending_.begin(), pending_.begin() + static_cast<std::ptrdiff_t>(n));
  }
  if (pending_.empty()) kept_.clear();  // no row points into it any more
}

std::string BatchInsert::sql_for(size_t rows) const {
  std::string sql;
  sql.reserve(head_.size() + rows * (row_.size() + 2));
  sql += head_;
  for (size_t i = 0; i < rows; ++i) {
    if (i) sql += ", ";
    sql += row_;
  }
  return sql;
}

}  // namespace strata::workflow::detail
