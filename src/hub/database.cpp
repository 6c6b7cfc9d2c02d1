// What every backend shares: the retry loop around transactions, and choosing a backend by URL.
#include "database.hpp"

#include <algorithm>
#include <chrono>
#include <random>
#include <thread>

#include "strata/hub/hub_url.hpp"

namespace strata::hub {

std::optional<std::string> sqlite_file(const std::string& url) {
  if (url.starts_with("postgresql://") || url.starts_with("postgres://")) return std::nullopt;
  constexpr std::string_view kScheme = "sqlite://";
  return url.starts_with(kScheme) ? url.substr(kScheme.size()) : url;
}

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
    on_failure_.clear();  // an attempt that was busy registers its own again
    try {
      begin(write);
      fn();
      commit();
      on_failure_.clear();
      return;
    } catch (const BusyError& e) {
      rollback();
      if (clock::now() >= deadline)
        throw Error(std::string("hub: the database stayed busy (locked by another writer) for ") +
                    std::to_string(busy_budget_ms) + " ms: " + e.what());
    } catch (...) {
      rollback();
      std::vector<std::function<void()>> settle;
      settle.swap(on_failure_);
      for (const auto& f : settle) f();
      throw;
    }
    std::this_thread::sleep_for(std::chrono::microseconds(wait_us / 2 + jitter() % (wait_us / 2 + 1)));
    wait_us = std::min(wait_us * 2, 200'000);
  }
}

}  // namespace strata::hub

namespace strata::hub::detail {

std::unique_ptr<Database> open_database(const std::string& url, int busy_budget_ms) {
  if (const auto path = sqlite_file(url)) return open_sqlite(*path, busy_budget_ms);
  return open_postgres(url, busy_budget_ms);
}

namespace {

// Where passwords sit in a URL, in order: scheme://user:PASSWORD@host..., and the value of each
// password= parameter or key=value entry. (offset, length) pairs.
std::vector<std::pair<size_t, size_t>> password_spans(const std::string& url) {
  std::vector<std::pair<size_t, size_t>> spans;
  const size_t scheme = url.find("://");
  if (scheme != std::string::npos) {
    const size_t at = url.find('@', scheme + 3);
    const size_t slash = url.find('/', scheme + 3);
    const size_t colon = url.find(':', scheme + 3);
    if (at != std::string::npos && (slash == std::string::npos || at < slash) && colon < at)
      spans.emplace_back(colon + 1, at - colon - 1);
  }
  for (size_t pw = url.find("password="); pw != std::string::npos; pw = url.find("password=", pw + 1)) {
    const size_t begin = pw + 9;
    spans.emplace_back(begin, std::min(url.find_first_of("& ", begin), url.size()) - begin);
  }
  // In order, and none inside another (a "password=" within the user's password).
  std::sort(spans.begin(), spans.end());
  std::vector<std::pair<size_t, size_t>> kept;
  for (const auto& span : spans)
    if (kept.empty() || span.first >= kept.back().first + kept.back().second) kept.push_back(span);
  return kept;
}

}  // namespace

std::string redact_url(const std::string& url) {
  std::string out;
  size_t copied = 0;
  for (const auto& [begin, length] : password_spans(url)) {
    out += url.substr(copied, begin - copied) + "***";
    copied = begin + length;
  }
  return out + url.substr(copied);
}

std::string password_in(const std::string& url) {
  const auto spans = password_spans(url);
  return spans.empty() ? "" : url.substr(spans.front().first, spans.front().second);
}

}  // namespace strata::hub::detail
