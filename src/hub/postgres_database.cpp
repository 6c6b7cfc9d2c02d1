// The PostgreSQL backend (libpq). Statements' `?` become $1, $2, ...; bytes go as binary
// parameters, results come as text (bytea in hex) one row at a time, so a blob's chunks stream.
// Lock conflicts (serialisation failures, deadlocks) are BusyError and retried. The password,
// from the URL, PGPASSFILE or PGPASSWORD, is never part of a message.
#include <libpq-fe.h>

#include <cstdlib>
#include <unordered_map>

#include "database.hpp"

namespace strata::hub::detail {
namespace {

// `?` outside quotes -> $n.
std::string numbered(std::string_view sql) {
  std::string out;
  out.reserve(sql.size() + 16);
  int n = 0;
  bool quoted = false;
  for (char c : sql) {
    if (c == '\'') quoted = !quoted;
    if (c == '?' && !quoted) {
      out += '$';
      out += std::to_string(++n);
    } else {
      out += c;
    }
  }
  return out;
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  throw Error("hub (PostgreSQL): a bytea value is not in hex format");
}

class PgRow final : public Row {
 public:
  explicit PgRow(PGresult* r) : r_(r) {}
  bool is_null(int c) const override { return PQgetisnull(r_, 0, c); }
  int64_t integer(int c) const override { return std::strtoll(PQgetvalue(r_, 0, c), nullptr, 10); }
  double real(int c) const override { return std::strtod(PQgetvalue(r_, 0, c), nullptr); }
  std::string text(int c) const override { return std::string(PQgetvalue(r_, 0, c), PQgetlength(r_, 0, c)); }
  std::string_view bytes(int c) const override {
    const char* p = PQgetvalue(r_, 0, c);
    const int n = PQgetlength(r_, 0, c);
    if (n < 2 || p[0] != '\\' || p[1] != 'x') throw Error("hub (PostgreSQL): expected a hex bytea value");
    scratch_.resize((n - 2) / 2);
    for (size_t i = 0; i < scratch_.size(); ++i)
      scratch_[i] = static_cast<char>(hex_value(p[2 + 2 * i]) << 4 | hex_value(p[3 + 2 * i]));
    return scratch_;
  }

 private:
  PGresult* r_;
  mutable std::string scratch_;
};

class PostgresDatabase final : public Database {
 public:
  PostgresDatabase(const std::string& url, int busy_budget_ms) : url_(redact_url(url)) {
    this->busy_budget_ms = busy_budget_ms;
    secret_ = password_in(url);
    if (const char* env = std::getenv("PGPASSWORD"); secret_.empty() && env) secret_ = env;
    conn_ = PQconnectdb(url.c_str());
    if (!conn_ || PQstatus(conn_) != CONNECTION_OK) {
      const std::string msg = conn_ ? PQerrorMessage(conn_) : "out of memory";
      PQfinish(conn_);
      conn_ = nullptr;
      throw Error("hub: cannot connect to PostgreSQL at " + url_ + ": " + scrub(msg));
    }
    if (const char* pw = PQpass(conn_)) secret_ = pw;  // also one taken from PGPASSWORD / PGPASSFILE
    execute("SET client_min_messages = warning");
  }
  ~PostgresDatabase() override { PQfinish(conn_); }

  Dialect dialect() const override { return Dialect::postgres; }

  void query(std::string_view sql, const Params& params, const RowFn& on_row) override {
    std::vector<std::string> storage(params.size());
    std::vector<const char*> values(params.size());
    std::vector<int> lengths(params.size()), formats(params.size());
    for (size_t i = 0; i < params.size(); ++i) {
      const Param& p = params[i];
      if (std::holds_alternative<std::nullptr_t>(p)) {
        values[i] = nullptr;
        continue;
      }
      if (auto* v = std::get_if<int64_t>(&p)) storage[i] = std::to_string(*v);
      else if (auto* d = std::get_if<double>(&p)) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.17g", *d);
        storage[i] = buf;
      } else if (auto* t = std::get_if<std::string_view>(&p)) storage[i] = std::string(*t);
      else if (auto* b = std::get_if<Bytes>(&p)) {
        values[i] = b->data.data() ? b->data.data() : "";
        lengths[i] = static_cast<int>(b->data.size());
        formats[i] = 1;  // binary: no escaping of the weights
        continue;
      }
      values[i] = storage[i].c_str();
      lengths[i] = static_cast<int>(storage[i].size());
    }
    if (!PQsendQueryPrepared(conn_, prepared(sql, static_cast<int>(params.size())).c_str(),
                             static_cast<int>(params.size()), values.data(), lengths.data(), formats.data(), 0))
      throw Error("hub (PostgreSQL " + url_ + "): " + scrub(PQerrorMessage(conn_)));
    PQsetSingleRowMode(conn_);
    // Every result must be collected, even after a failure or a throwing callback, or the
    // connection stays busy.
    std::string error, state;
    std::exception_ptr thrown;
    while (PGresult* r = PQgetResult(conn_)) {
      const auto status = PQresultStatus(r);
      if (status == PGRES_SINGLE_TUPLE) {
        if (on_row && !thrown && error.empty()) {
          try {
            on_row(PgRow(r));
          } catch (...) {
            thrown = std::current_exception();
          }
        }
      } else if (status != PGRES_TUPLES_OK && status != PGRES_COMMAND_OK && error.empty()) {
        error = PQresultErrorMessage(r);
        const char* s = PQresultErrorField(r, PG_DIAG_SQLSTATE);
        state = s ? s : "";
      }
      PQclear(r);
    }
    if (thrown) std::rethrow_exception(thrown);
    if (!error.empty()) {
      const std::string msg = "hub (PostgreSQL " + url_ + "): " + scrub(error) + " [in: " +
                              std::string(sql.substr(0, 80)) + "]";
      // serialization_failure, deadlock_detected, lock_not_available: try again later
      if (state == "40001" || state == "40P01" || state == "55P03") throw BusyError(msg);
      throw Error(msg);
    }
  }

  void begin(bool write) override {
    // Reads see one snapshot: a model deleted meanwhile is seen whole or not at all.
    execute(write ? "BEGIN" : "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
  }
  void commit() override { execute("COMMIT"); }
  void rollback() noexcept override {
    if (PQtransactionStatus(conn_) != PQTRANS_IDLE) PQclear(PQexec(conn_, "ROLLBACK"));
  }
  void lock_for_transaction(int64_t key) override { execute("SELECT pg_advisory_xact_lock(?)", {key}); }

 private:
  // Statements are prepared once per connection, like SQLite's, and named by a counter.
  const std::string& prepared(std::string_view sql, int n_params) {
    auto it = prepared_.find(std::string(sql));
    if (it != prepared_.end()) return it->second;
    std::string name = std::to_string(prepared_.size());
    name.insert(name.begin(), 's');
    PGresult* r = PQprepare(conn_, name.c_str(), numbered(sql).c_str(), n_params, nullptr);
    const bool ok = PQresultStatus(r) == PGRES_COMMAND_OK;
    const std::string error = ok ? "" : PQresultErrorMessage(r);
    PQclear(r);
    if (!ok) throw Error("hub (PostgreSQL " + url_ + "): " + scrub(error) + " [in: " + std::string(sql.substr(0, 80)) + "]");
    return prepared_.emplace(std::string(sql), name).first->second;
  }

  static std::string password_in(const std::string& url) {
    const std::string redacted = redact_url(url);
    if (redacted == url) return "";
    // The password is what redact_url replaced: the first place the two differ.
    size_t a = 0;
    while (a < url.size() && url[a] == redacted[a]) ++a;
    size_t end = url.find_first_of("@&", a);
    return url.substr(a, end == std::string::npos ? std::string::npos : end - a);
  }
  std::string scrub(std::string msg) const {
    while (!msg.empty() && (msg.back() == '\n' || msg.back() == ' ')) msg.pop_back();
    if (secret_.empty()) return msg;
    for (size_t at; (at = msg.find(secret_)) != std::string::npos;) msg.replace(at, secret_.size(), "***");
    return msg;
  }

  std::string url_;  // redacted
  std::string secret_;
  PGconn* conn_ = nullptr;
  std::unordered_map<std::string, std::string> prepared_;
};

}  // namespace

std::unique_ptr<Database> open_postgres(const std::string& url, int busy_budget_ms) {
  return std::make_unique<PostgresDatabase>(url, busy_budget_ms);
}

}  // namespace strata::hub::detail
