// The PostgreSQL backend (libpq). Statements' `?` become $1, $2, ...; bytes go as binary
// parameters, results come in binary one row at a time, so a blob's chunks stream.
// Lock conflicts (serialisation failures, deadlocks) are BusyError and retried. A connection
// lost between transactions is reopened before the next statement. The password, from the URL,
// PGPASSFILE or PGPASSWORD, is never part of a message.
#include <endian.h>
#include <libpq-fe.h>
#include <poll.h>

#include <bit>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <set>
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

// Results come in binary: bytea is the raw bytes (hex text doubled a blob's size and cost a
// decode pass), numbers are big-endian. Columns are decoded by their type OID (pg_type.h).
enum PgType : Oid { kBool = 16, kBytea = 17, kName = 19, kInt8 = 20, kInt2 = 21, kInt4 = 23, kText = 25,
                    kFloat4 = 700, kFloat8 = 701, kUnknown = 705, kVarchar = 1043 };

class PgRow final : public Row {
 public:
  explicit PgRow(PGresult* r) : r_(r) {}
  bool is_null(int c) const override { return PQgetisnull(r_, 0, c); }
  int64_t integer(int c) const override {
    switch (PQftype(r_, c)) {
      case kInt8: return static_cast<int64_t>(be64toh(load<uint64_t>(c)));
      case kInt4: return static_cast<int32_t>(be32toh(load<uint32_t>(c)));
      case kInt2: return static_cast<int16_t>(be16toh(load<uint16_t>(c)));
      case kBool: return *PQgetvalue(r_, 0, c) != 0;
      case kFloat4: case kFloat8: return static_cast<int64_t>(real(c));
      default: throw unsupported(c, "an integer");
    }
  }
  double real(int c) const override {
    switch (PQftype(r_, c)) {
      case kFloat8: return std::bit_cast<double>(be64toh(load<uint64_t>(c)));
      case kFloat4: return std::bit_cast<float>(be32toh(load<uint32_t>(c)));
      case kInt8: case kInt4: case kInt2: case kBool: return static_cast<double>(integer(c));
      default: throw unsupported(c, "a number");
    }
  }
  std::string text(int c) const override {
    switch (PQftype(r_, c)) {
      case kText: case kVarchar: case kName: case kUnknown:
        return std::string(PQgetvalue(r_, 0, c), PQgetlength(r_, 0, c));
      case kInt8: case kInt4: case kInt2: case kBool: return std::to_string(integer(c));
      case kFloat4: case kFloat8: {
        char buf[32];
        const auto end = std::to_chars(buf, buf + sizeof buf, real(c)).ptr;  // shortest round trip, as PostgreSQL prints
        return std::string(buf, end);
      }
      default: throw unsupported(c, "text");
    }
  }
  std::string_view bytes(int c) const override {
    if (PQftype(r_, c) != kBytea) throw unsupported(c, "bytes");
    return {PQgetvalue(r_, 0, c), static_cast<size_t>(PQgetlength(r_, 0, c))};
  }

 private:
  template <typename T>
  T load(int c) const {
    if (PQgetlength(r_, 0, c) != sizeof(T)) throw unsupported(c, "a " + std::to_string(sizeof(T)) + "-byte value");
    T v;
    std::memcpy(&v, PQgetvalue(r_, 0, c), sizeof v);
    return v;
  }
  Error unsupported(int c, const std::string& wanted) const {
    const char* name = PQfname(r_, c);
    return Error("hub (PostgreSQL): column " + std::string(name ? name : "?") + " has type OID " +
                 std::to_string(PQftype(r_, c)) + ", which cannot be read as " + wanted);
  }

  PGresult* r_;
};

class PostgresDatabase final : public Database {
 public:
  PostgresDatabase(const std::string& url, int busy_budget_ms) : url_(redact_url(url)) {
    this->busy_budget_ms = busy_budget_ms;
    secret_ = password_in(url);
    if (const char* env = std::getenv("PGPASSWORD"); secret_.empty() && env) secret_ = env;
    conn_.handle = PQconnectdb(url.c_str());
    if (!conn_ || PQstatus(conn_) != CONNECTION_OK) {
      const std::string msg = conn_ ? PQerrorMessage(conn_) : "out of memory";
      throw Error("hub: cannot connect to PostgreSQL at " + url_ + ": " + scrub(msg));
    }
    if (const char* pw = PQpass(conn_)) secret_ = pw;  // also one taken from PGPASSWORD / PGPASSFILE
    configure_session();
  }

  Dialect dialect() const override { return Dialect::postgres; }

  void query(std::string_view sql, const Params& params, const RowFn& on_row) override {
    reconnect_if_lost();
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
                             static_cast<int>(params.size()), values.data(), lengths.data(), formats.data(), /*binary results*/ 1))
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
    in_transaction_ = true;
  }
  void commit() override {
    execute("COMMIT");
    in_transaction_ = false;
  }
  void rollback() noexcept override {
    in_transaction_ = false;
    if (PQstatus(conn_) == CONNECTION_OK && PQtransactionStatus(conn_) != PQTRANS_IDLE) PQclear(PQexec(conn_, "ROLLBACK"));
  }
  void lock_for_transaction(int64_t key) override { execute("SELECT pg_advisory_xact_lock(?)", {key}); }

  void notify(const std::string& channel) override {
    execute("SELECT pg_notify(?, '')", {std::string_view(channel)});
  }

  bool wait_for_notification(const std::string& channel, double seconds) override {
    reconnect_if_lost();
    if (listening_.insert(channel).second) {
      // A channel is an identifier, not a parameter; ours are fixed names, quoted anyway.
      PGresult* r = PQexec(conn_, ("LISTEN \"" + channel + "\"").c_str());
      const bool ok = PQresultStatus(r) == PGRES_COMMAND_OK;
      PQclear(r);
      if (!ok) {
        listening_.erase(channel);
        throw Error("hub: LISTEN failed on " + url_ + ": " + scrub(PQerrorMessage(conn_)));
      }
    }
    const auto drain = [&] {
      bool any = false;
      while (PGnotify* n = PQnotifies(conn_)) {
        any = true;
        PQfreemem(n);
      }
      return any;
    };
    if (drain()) return true;  // arrived during earlier statements
    pollfd fd{PQsocket(conn_), POLLIN, 0};
    const int rc = ::poll(&fd, 1, static_cast<int>(seconds * 1000));
    if (rc > 0 && !PQconsumeInput(conn_))
      throw Error("hub: lost the connection to " + url_ + " while waiting: " + scrub(PQerrorMessage(conn_)));
    drain();
    return true;
  }

 private:
  void configure_session() { execute("SET client_min_messages = warning"); }

  // A server restart (or a failover, or an idle connection cut by the network) breaks the
  // connection, and libpq does not reopen it: a long-lived process (strata serve's poller, the
  // dashboard) would fail every statement from then on. Between transactions the connection is
  // checked before each statement and reopened when it is gone: reading what the server may
  // have sent tells a closed connection from a live one without a round trip. Inside a
  // transaction nothing is reopened: its earlier statements died with the connection, so it
  // fails, and Database::transaction's caller decides.
  void reconnect_if_lost() {
    if (in_transaction_) return;
    // A server that shuts down sends a last error, then closes: the first read takes the error
    // (PQisBusy parses it), the second finds the end of the stream. Two non-blocking reads.
    for (int read = 0; read < 2 && PQstatus(conn_) == CONNECTION_OK && PQisBusy(conn_) == 0; ++read)
      PQconsumeInput(conn_);
    if (PQstatus(conn_) == CONNECTION_OK) return;
    PQreset(conn_);
    prepared_.clear();   // prepared statements and LISTENs belong to the old session
    listening_.clear();  // (notifications sent while it was down are lost: waiters poll too)
    if (PQstatus(conn_) != CONNECTION_OK)
      throw Error("hub: lost the connection to PostgreSQL at " + url_ + " and could not reopen it: " +
                  scrub(PQerrorMessage(conn_)));
    configure_session();
  }

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

  std::string scrub(std::string msg) const {
    while (!msg.empty() && (msg.back() == '\n' || msg.back() == ' ')) msg.pop_back();
    if (secret_.empty()) return msg;
    // Searching on after each replacement: a password that is "*", or a part of "***", would
    // otherwise be found again inside its own replacement, forever.
    constexpr std::string_view kHidden = "***";
    for (size_t at = 0; (at = msg.find(secret_, at)) != std::string::npos; at += kHidden.size())
      msg.replace(at, secret_.size(), kHidden);
    return msg;
  }

  std::string url_;  // redacted
  std::string secret_;
  // Owns the connection as a member, not in ~PostgresDatabase: the constructor's own statements
  // can throw (a connection killed right after it opened), and then only members are destroyed.
  struct Connection {
    PGconn* handle = nullptr;
    Connection() = default;
    Connection(const Connection&) = delete;
    Connection& operator=(const Connection&) = delete;
    ~Connection() { PQfinish(handle); }
    operator PGconn*() const { return handle; }
  } conn_;
  std::unordered_map<std::string, std::string> prepared_;
  std::set<std::string> listening_;  // channels LISTENed to on this connection
  bool in_transaction_ = false;      // between begin() and commit() or rollback()
};

}  // namespace

std::unique_ptr<Database> open_postgres(const std::string& url, int busy_budget_ms) {
  return std::make_unique<PostgresDatabase>(url, busy_budget_ms);
}

}  // namespace strata::hub::detail
