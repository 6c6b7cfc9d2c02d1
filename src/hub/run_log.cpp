// Runs: metric points and events buffered in the Run object and written one transaction per
// batch (when it fills, when its oldest entry is flush_interval old, on flush, finish, destruction
// and exit), and the queries that read a run and its events back (metric series: metric_reads.cpp).
#include <unistd.h>

#include <algorithm>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <set>
#include <thread>

#include <nlohmann/json.hpp>

#include "hub_state.hpp"
#include "strata/hub/hub.hpp"

namespace strata::hub {

using detail::HubState;
using detail::Row;

const char* split_name(Split s) {
  switch (s) {
    case Split::train: return "train";
    case Split::validation: return "validation";
    case Split::test: return "test";
  }
  throw Error("hub: unknown split");
}

Split parse_split(const std::string& name) {
  for (Split s : kSplits)
    if (name == split_name(s)) return s;
  throw Error("hub: unknown split \"" + name.substr(0, 40) + "\" (expected train, validation or test)");
}

// A Run's buffer, and the thread that writes it when its oldest entry is flush_interval old.
// Lock order: `mu`, then the hub's `state->mu`. Kept on the heap so a moved Run keeps it.
struct Run::Pending {
  struct Point {
    int64_t step;
    Split split;
    std::string name;
    double value, time;
  };
  struct Evt {
    std::string kind, payload;
    double time;
  };

  Pending(std::shared_ptr<HubState> s, int64_t run_id);
  size_t size() const { return points.size() + events.size(); }
  // Called with `mu` held after adding an entry: writes a full batch, or makes sure the
  // flusher will write this one in time.
  void added(std::unique_lock<std::mutex>& lock);
  void write_locked(const std::string* status);  // `mu` held; keeps the buffer if the write fails
  void flusher_loop();
  // Stops the flusher and writes what is left, once; errors are swallowed.
  void stop_and_write() noexcept;
  void close() noexcept {
    unregister();
    stop_and_write();
  }
  void unregister() noexcept;

  std::shared_ptr<HubState> state;
  int64_t id;
  std::mutex mu;
  std::condition_variable wake;
  std::vector<Point> points;
  std::vector<Evt> events;
  std::chrono::steady_clock::time_point oldest;  // when the oldest buffered entry came
  std::thread flusher;
  bool closed = false;
  pid_t pid = ::getpid();  // a forked child must not touch its parent's threads or connections
};

namespace {

// Runs still open when the program calls exit(): an atexit handler closes them, so their last
// points are written even though their destructors never run. Leaked on purpose: it must
// outlive every static destructor.
struct OpenRuns {
  std::mutex mu;
  std::set<Run::Pending*> runs;
};

OpenRuns& open_runs() {
  static OpenRuns* registry = [] {
    auto* r = new OpenRuns;
    std::atexit([] {
      OpenRuns& all = open_runs();
      std::lock_guard lock(all.mu);
      for (auto* p : std::set<Run::Pending*>(all.runs))
        if (p->pid == ::getpid()) p->stop_and_write();
      all.runs.clear();
    });
    return r;
  }();
  return *registry;
}

}  // namespace

Run::Pending::Pending(std::shared_ptr<HubState> s, int64_t run_id) : state(std::move(s)), id(run_id) {
  OpenRuns& all = open_runs();
  std::lock_guard lock(all.mu);
  all.runs.insert(this);
}

void Run::Pending::unregister() noexcept {
  OpenRuns& all = open_runs();
  if (::getpid() != pid) return;  // in a forked child: the parent's registry is not ours to lock
  std::lock_guard lock(all.mu);
  all.runs.erase(this);
}

void Run::Pending::added(std::unique_lock<std::mutex>& lock) {
  if (size() == 1) oldest = std::chrono::steady_clock::now();
  if (size() >= state->options.log_batch) {
    write_locked(nullptr);
  } else if (size() == 1 && state->options.flush_interval.count() > 0) {
    // Started on the first entry, not with the run: a run that never logs costs no thread.
    if (!flusher.joinable()) flusher = std::thread([this] { flusher_loop(); });
    else wake.notify_one();
  }
}

void Run::Pending::flusher_loop() {
  std::unique_lock lock(mu);
  while (!closed) {
    if (size() == 0) {
      wake.wait(lock);
      continue;
    }
    const auto due = oldest + state->options.flush_interval;
    if (std::chrono::steady_clock::now() < due) {
      wake.wait_until(lock, due);
      continue;
    }
    try {
      write_locked(nullptr);
    } catch (...) {
      oldest = std::chrono::steady_clock::now();  // kept: retried after another interval, or reported by flush()
    }
  }
}

void Run::Pending::stop_and_write() noexcept {
  std::unique_lock lock(mu);
  if (closed) return;
  closed = true;
  if (flusher.joinable()) {
    wake.notify_one();
    lock.unlock();
    flusher.join();
    lock.lock();
  }
  try {
    if (size() > 0) write_locked(nullptr);
  } catch (...) {
    // A destructor cannot report; flush() and finish() do.
  }
}

Run::Run(std::shared_ptr<HubState> state, int64_t id)
    : state_(state), id_(id), pending_(std::make_unique<Pending>(std::move(state), id)) {}
Run::Run(Run&&) noexcept = default;
Run& Run::operator=(Run&& o) noexcept {
  if (this != &o) {
    if (pending_) pending_->close();
    state_ = std::move(o.state_);
    id_ = o.id_;
    pending_ = std::move(o.pending_);
  }
  return *this;
}

Run::~Run() {
  if (pending_) pending_->close();
}

void Run::log(int64_t step, Split split, const std::string& name, double value) {
  STRATA_CHECK(state_, "Run::log: this run was moved from");
  std::unique_lock lock(pending_->mu);
  pending_->points.push_back({step, split, name, value, detail::unix_now()});
  pending_->added(lock);
}

void Run::log(int64_t step, Split split, const std::map<std::string, double>& values) {
  for (const auto& [name, value] : values) log(step, split, name, value);
}

void Run::event(const std::string& kind, const std::string& payload_json) {
  STRATA_CHECK(state_, "Run::event: this run was moved from");
  STRATA_CHECK(nlohmann::json::accept(payload_json), "Run::event: the payload of event \"", kind,
               "\" is not valid JSON: ", payload_json.substr(0, 80));
  std::unique_lock lock(pending_->mu);
  pending_->events.push_back({kind, payload_json, detail::unix_now()});
  pending_->added(lock);
}

void Run::flush() {
  STRATA_CHECK(state_, "Run::flush: this run was moved from");
  std::lock_guard lock(pending_->mu);
  if (pending_->size() > 0) pending_->write_locked(nullptr);
}

void Run::finish(const std::string& status) {
  STRATA_CHECK(state_, "Run::finish: this run was moved from");
  std::lock_guard lock(pending_->mu);
  pending_->write_locked(&status);
}

void Run::Pending::write_locked(const std::string* status) {
  constexpr size_t kRows = 128;
  static const std::string insert_many = [] {
    std::string sql = "INSERT INTO metrics (run_id, step, split, name, value, time) VALUES ";
    for (size_t i = 0; i < kRows; ++i) sql += i ? ", (?, ?, ?, ?, ?, ?)" : "(?, ?, ?, ?, ?, ?)";
    return sql;
  }();
  std::lock_guard lock(state->mu);
  auto& db = *state->db;
  db.transaction(true, [&] {
    // Many rows per statement: one round trip per kRows points on a server.
    size_t i = 0;
    detail::Params params;
    params.reserve(kRows * 6);
    for (; i + kRows <= points.size(); i += kRows) {
      params.clear();
      for (size_t j = i; j < i + kRows; ++j) {
        const auto& p = points[j];
        params.insert(params.end(), {id, p.step, split_name(p.split), p.name, p.value, p.time});
      }
      db.execute(insert_many, params);
    }
    for (; i < points.size(); ++i) {
      const auto& p = points[i];
      db.execute("INSERT INTO metrics (run_id, step, split, name, value, time) VALUES (?, ?, ?, ?, ?, ?)",
                 {id, p.step, split_name(p.split), p.name, p.value, p.time});
    }
    for (const auto& e : events)
      db.execute("INSERT INTO events (run_id, kind, payload, time) VALUES (?, ?, ?, ?)", {id, e.kind, e.payload, e.time});
    if (status)
      db.execute("UPDATE runs SET status = ?, finished_at = ? WHERE id = ?", {*status, detail::unix_now(), id});
  });
  points.clear();
  events.clear();
}

Run Hub::create_run(const std::string& name, const std::string& config_json) {
  STRATA_CHECK(nlohmann::json::accept(config_json), "Hub::create_run: the config of run \"", name,
               "\" is not valid JSON: ", config_json.substr(0, 80));
  std::lock_guard lock(state_->mu);
  HubState& s = *state_;
  int64_t id = 0;
  s.db->transaction(true, [&] {
    const int64_t pid = *s.project_id(true);
    id = *s.db->query_int(
        "INSERT INTO runs (project_id, name, status, config, created_at) VALUES (?, ?, 'running', ?, ?) RETURNING id",
        {pid, name, config_json, detail::unix_now()});
  });
  return Run(state_, id);
}

namespace {
constexpr const char* kRunColumns = "id, name, status, config, created_at, finished_at";
RunInfo read_run(const Row& r) {
  return {r.integer(0), r.text(1), r.text(2), r.text(3), r.real(4), r.is_null(5) ? 0.0 : r.real(5)};
}
}  // namespace

std::optional<RunInfo> Hub::run_info(int64_t run_id) {
  std::lock_guard lock(state_->mu);
  std::optional<RunInfo> out;
  state_->db->query(std::string("SELECT ") + kRunColumns + " FROM runs WHERE id = ?", {run_id},
                    [&](const Row& r) { out = read_run(r); });
  return out;
}

std::vector<RunInfo> Hub::list_runs(Page page) {
  std::lock_guard lock(state_->mu);
  std::vector<RunInfo> out;
  const auto pid = state_->project_id(false);
  if (!pid) return out;
  state_->db->query(std::string("SELECT ") + kRunColumns + " FROM runs WHERE project_id = ? ORDER BY id DESC LIMIT ? OFFSET ?",
                    {*pid, page.limit, page.offset}, [&](const Row& r) { out.push_back(read_run(r)); });
  return out;
}

namespace {
Event read_event(const Row& r) { return {r.integer(0), r.text(1), r.text(2), r.real(3)}; }
}  // namespace

std::vector<Event> Hub::events(int64_t run_id, Page page) {
  std::lock_guard lock(state_->mu);
  std::vector<Event> out;
  state_->db->query("SELECT id, kind, payload, time FROM events WHERE run_id = ? ORDER BY id LIMIT ? OFFSET ?",
                    {run_id, page.limit, page.offset}, [&](const Row& r) { out.push_back(read_event(r)); });
  return out;
}

std::vector<Event> Hub::latest_events(int64_t run_id, int64_t limit) {
  std::lock_guard lock(state_->mu);
  std::vector<Event> out;
  // Read backwards along the (run_id, id) index, so a run of a million events costs `limit` rows.
  state_->db->query("SELECT id, kind, payload, time FROM events WHERE run_id = ? ORDER BY id DESC LIMIT ?",
                    {run_id, std::max<int64_t>(limit, 0)}, [&](const Row& r) { out.push_back(read_event(r)); });
  std::reverse(out.begin(), out.end());
  return out;
}

}  // namespace strata::hub
