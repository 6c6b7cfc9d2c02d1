// What every backend shares: the retry loop around transactions, and choosing a backend by URL.
#include "database.hpp"

#include <chrono>
#include <random>
#include <thread>

namespace strata::hub::detail {

std::optional<int64_t> Database::query_int(std::string_view sql, const Params& params) {
  std::optional<int64_t> out;
  query(sql, params, [&](const Row& r) {
    if (!out && !r.is_null(0)) out = r.integer(0);
  });
  return out;
}

void Database::transaction(bool write, const std::function<void()>& fn) {
  using clock = std::chrono::steady_clock;
  const auto deadline = clock::now() + std::chrono::milliseconds(busy_budget_ms);
  std::minstd_rand jitter(std::random_device{}());
  int wait_us = 1000;
  for (;;) {
    try {
      begin(write);
      fn();
      commit();
      return;
    } catch (const BusyError& e) {
      rollback();
      if (clock::now() >= deadline)
        throw Error(std::string("hub: the database stayed busy (locked by another writer) for ") +
                    std::to_string(busy_budget_ms) + " ms: " + e.what());
    } catch (...) {
      rollback();
      throw;
    }
    std::this_thread::sleep_for(std::chrono::microseconds(wait_us / 2 + jitter() % (wait_us / 2 + 1)));
    wait_us = std::min(wait_us * 2, 200'000);
  }
}

std::unique_ptr<Database> open_database(const std::string& url, int busy_budget_ms) {
  if (url.rfind("postgresql://", 0) == 0 || url.rfind("postgres://", 0) == 0) return open_postgres(url, busy_budget_ms);
  std::string path = url.rfind("sqlite://", 0) == 0 ? url.substr(9) : url;
  return open_sqlite(path, busy_budget_ms);
}

std::string redact_url(const std::string& url) {
  std::string out = url;
  // scheme://user:password@host... -> scheme://user:***@host...
  const size_t scheme = out.find("://");
  if (scheme != std::string::npos) {
    const size_t at = out.find('@', scheme + 3);
    const size_t slash = out.find('/', scheme + 3);
    const size_t colon = out.find(':', scheme + 3);
    if (at != std::string::npos && (slash == std::string::npos || at < slash) && colon < at)
      out = out.substr(0, colon + 1) + "***" + out.substr(at);
  }
  // A password can also come as a URL parameter or a key=value connection string entry.
  for (size_t pw = out.find("password="); pw != std::string::npos; pw = out.find("password=", pw + 1)) {
    const size_t begin = pw + 9;
    const size_t end = out.find_first_of("& ", begin);
    out = out.substr(0, begin) + "***" + (end == std::string::npos ? "" : out.substr(end));
  }
  return out;
}

}  // namespace strata::hub::detail
