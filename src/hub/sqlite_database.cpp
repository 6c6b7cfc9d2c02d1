// The SQLite backend: WAL mode (readers never block the writer), foreign keys on, a busy
// timeout inside SQLite plus the retry loop in Database::transaction, and prepared statements
// cached by their text so a batch of inserts compiles its statement once.
#include <sqlite3.h>

#include <chrono>
#include <thread>
#include <unordered_map>

#include "database.hpp"

namespace strata::hub::detail {
namespace {

class SqliteRow final : public Row {
 public:
  explicit SqliteRow(sqlite3_stmt* s) : s_(s) {}
  bool is_null(int c) const override { return sqlite3_column_type(s_, c) == SQLITE_NULL; }
  int64_t integer(int c) const override { return sqlite3_column_int64(s_, c); }
  double real(int c) const override { return sqlite3_column_double(s_, c); }
  std::string text(int c) const override {
    const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(s_, c));
    return p ? std::string(p, sqlite3_column_bytes(s_, c)) : std::string();
  }
  std::string_view bytes(int c) const override {
    const auto* p = static_cast<const char*>(sqlite3_column_blob(s_, c));
    return p ? std::string_view(p, sqlite3_column_bytes(s_, c)) : std::string_view();
  }

 private:
  sqlite3_stmt* s_;
};

// Resets a cached statement however the query ends: a statement left mid-step would hold its
// read transaction open and keep the WAL from being checkpointed.
struct ResetGuard {
  sqlite3_stmt* s;
  ~ResetGuard() {
    sqlite3_reset(s);
    sqlite3_clear_bindings(s);
  }
};

class SqliteDatabase final : public Database {
 public:
  SqliteDatabase(const std::string& path, int busy_budget_ms) : path_(path) {
    this->busy_budget_ms = busy_budget_ms;
    const int rc = sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                                   nullptr);
    if (rc != SQLITE_OK) {
      const std::string msg = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
      sqlite3_close(db_);
      throw Error("hub: cannot open the SQLite database \"" + path + "\": " + msg);
    }
    sqlite3_extended_result_codes(db_, 1);
    // SQLite waits this long for a lock itself; Database::transaction retries beyond it.
    sqlite3_busy_timeout(db_, 2000);
    try {
      // Switching to WAL needs a moment of exclusive access, which several processes opening a
      // fresh database at once contend for: retry it like a transaction.
      // Large pages: a 4 MiB chunk spans 64 overflow pages instead of 1024 (only takes effect
      // on a new database).
      execute("PRAGMA page_size=65536");
      retry_busy([&] { execute("PRAGMA journal_mode=WAL"); });
      execute("PRAGMA foreign_keys=ON");
      // In WAL mode NORMAL survives a killed process; only the last commits can be lost on power loss.
      execute("PRAGMA synchronous=NORMAL");
      // Reads through a memory map: a blob's pages are copied once, from the page cache, instead
      // of read() into SQLite's cache first. Writes still go through write(), so a killed
      // process cannot corrupt the file. (Capped by SQLite's compile-time SQLITE_MAX_MMAP_SIZE.)
      execute("PRAGMA mmap_size=68719476736");
    } catch (...) {
      close();
      throw;
    }
  }
  ~SqliteDatabase() override { close(); }

  Dialect dialect() const override { return Dialect::sqlite; }

  void query(std::string_view sql, const Params& params, const RowFn& on_row) override {
    sqlite3_stmt* s = statement(sql);
    ResetGuard guard{s};
    for (size_t i = 0; i < params.size(); ++i) bind(s, static_cast<int>(i) + 1, params[i], sql);
    SqliteRow row(s);
    for (;;) {
      const int rc = sqlite3_step(s);
      if (rc == SQLITE_ROW) {
        if (on_row) on_row(row);
      } else if (rc == SQLITE_DONE) {
        return;
      } else {
        fail(rc, sql);
      }
    }
  }

  void begin(bool write) override { execute(write ? "BEGIN IMMEDIATE" : "BEGIN"); }
  void commit() override { execute("COMMIT"); }
  void rollback() noexcept override {
    if (!sqlite3_get_autocommit(db_)) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
  }

 private:
  sqlite3_stmt* statement(std::string_view sql) {
    auto it = cache_.find(std::string(sql));
    if (it != cache_.end()) return it->second;
    sqlite3_stmt* s = nullptr;
    const int rc = sqlite3_prepare_v3(db_, sql.data(), static_cast<int>(sql.size()), SQLITE_PREPARE_PERSISTENT, &s,
                                      nullptr);
    if (rc != SQLITE_OK) fail(rc, sql);
    cache_.emplace(std::string(sql), s);
    return s;
  }

  void bind(sqlite3_stmt* s, int i, const Param& p, std::string_view sql) {
    int rc = SQLITE_OK;
    if (std::holds_alternative<std::nullptr_t>(p)) rc = sqlite3_bind_null(s, i);
    else if (auto* v = std::get_if<int64_t>(&p)) rc = sqlite3_bind_int64(s, i, *v);
    else if (auto* d = std::get_if<double>(&p)) rc = sqlite3_bind_double(s, i, *d);
    else if (auto* t = std::get_if<std::string_view>(&p))
      rc = sqlite3_bind_text64(s, i, t->data(), t->size(), SQLITE_STATIC, SQLITE_UTF8);
    else if (auto* b = std::get_if<Bytes>(&p))
      rc = b->data.empty() ? sqlite3_bind_zeroblob(s, i, 0) : sqlite3_bind_blob64(s, i, b->data.data(), b->data.size(), SQLITE_STATIC);
    if (rc != SQLITE_OK) fail(rc, sql);
  }

  [[noreturn]] void fail(int rc, std::string_view sql) {
    const std::string msg = "hub (SQLite \"" + path_ + "\"): " + sqlite3_errmsg(db_) + " [in: " +
                            std::string(sql.substr(0, 80)) + "]";
    const int primary = rc & 0xff;
    if (primary == SQLITE_BUSY || primary == SQLITE_LOCKED) throw BusyError(msg);
    throw Error(msg);
  }

  template <class F>
  void retry_busy(F&& f) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(busy_budget_ms);
    for (int wait_ms = 1;; wait_ms = std::min(wait_ms * 2, 200)) {
      try {
        return f();
      } catch (const BusyError&) {
        if (std::chrono::steady_clock::now() >= deadline) throw;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(wait_ms));
    }
  }

  void close() {
    for (auto& [sql, s] : cache_) sqlite3_finalize(s);
    cache_.clear();
    if (db_) sqlite3_close(db_);
    db_ = nullptr;
  }

  std::string path_;
  sqlite3* db_ = nullptr;
  std::unordered_map<std::string, sqlite3_stmt*> cache_;
};

}  // namespace

std::unique_ptr<Database> open_sqlite(const std::string& path, int busy_budget_ms) {
  return std::make_unique<SqliteDatabase>(path, busy_budget_ms);
}

}  // namespace strata::hub::detail
