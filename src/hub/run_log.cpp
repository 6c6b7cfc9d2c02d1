// Runs: metric points and events buffered in the Run object and written one transaction per
// batch, and the queries that read a run back.
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
  std::vector<Point> points;
  std::vector<Evt> events;
  size_t size() const { return points.size() + events.size(); }
};

Run::Run(std::shared_ptr<HubState> state, int64_t id) : state_(std::move(state)), id_(id), pending_(new Pending) {}
Run::Run(Run&&) noexcept = default;
Run& Run::operator=(Run&& o) noexcept {
  if (this != &o) {
    try {
      if (state_) flush();
    } catch (...) {
    }
    state_ = std::move(o.state_);
    id_ = o.id_;
    pending_ = std::move(o.pending_);
  }
  return *this;
}

Run::~Run() {
  try {
    if (state_ && pending_ && pending_->size() > 0) write(nullptr);
  } catch (...) {
    // A destructor cannot report; flush() and finish() do.
  }
}

void Run::log(int64_t step, Split split, const std::string& name, double value) {
  STRATA_CHECK(state_, "Run::log: this run was moved from");
  pending_->points.push_back({step, split, name, value, detail::unix_now()});
  if (pending_->size() >= state_->options.log_batch) write(nullptr);
}

void Run::log(int64_t step, Split split, const std::map<std::string, double>& values) {
  for (const auto& [name, value] : values) log(step, split, name, value);
}

void Run::event(const std::string& kind, const std::string& payload_json) {
  STRATA_CHECK(state_, "Run::event: this run was moved from");
  STRATA_CHECK(nlohmann::json::accept(payload_json), "Run::event: the payload of event \"", kind,
               "\" is not valid JSON: ", payload_json.substr(0, 80));
  pending_->events.push_back({kind, payload_json, detail::unix_now()});
  if (pending_->size() >= state_->options.log_batch) write(nullptr);
}

void Run::flush() {
  STRATA_CHECK(state_, "Run::flush: this run was moved from");
  if (pending_->size() > 0) write(nullptr);
}

void Run::finish(const std::string& status) {
  STRATA_CHECK(state_, "Run::finish: this run was moved from");
  write(&status);
}

void Run::write(const std::string* status) {
  constexpr size_t kRows = 128;
  static const std::string insert_many = [] {
    std::string sql = "INSERT INTO metrics (run_id, step, split, name, value, time) VALUES ";
    for (size_t i = 0; i < kRows; ++i) sql += i ? ", (?, ?, ?, ?, ?, ?)" : "(?, ?, ?, ?, ?, ?)";
    return sql;
  }();
  std::lock_guard lock(state_->mu);
  auto& db = *state_->db;
  db.transaction(true, [&] {
    // Many rows per statement: one round trip per kRows points on a server.
    const auto& points = pending_->points;
    size_t i = 0;
    for (; i + kRows <= points.size(); i += kRows) {
      detail::Params params;
      params.reserve(kRows * 6);
      for (size_t j = i; j < i + kRows; ++j) {
        const auto& p = points[j];
        params.insert(params.end(), {id_, p.step, split_name(p.split), p.name, p.value, p.time});
      }
      db.execute(insert_many, params);
    }
    for (; i < points.size(); ++i) {
      const auto& p = points[i];
      db.execute("INSERT INTO metrics (run_id, step, split, name, value, time) VALUES (?, ?, ?, ?, ?, ?)",
                 {id_, p.step, split_name(p.split), p.name, p.value, p.time});
    }
    for (const auto& e : pending_->events)
      db.execute("INSERT INTO events (run_id, kind, payload, time) VALUES (?, ?, ?, ?)", {id_, e.kind, e.payload, e.time});
    if (status)
      db.execute("UPDATE runs SET status = ?, finished_at = ? WHERE id = ?", {*status, detail::unix_now(), id_});
  });
  pending_->points.clear();
  pending_->events.clear();
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

std::vector<MetricPoint> Hub::metric_history(int64_t run_id, const std::string& name, Split split) {
  std::lock_guard lock(state_->mu);
  std::vector<MetricPoint> out;
  state_->db->query("SELECT step, value, time FROM metrics WHERE run_id = ? AND name = ? AND split = ? ORDER BY step, time",
                    {run_id, name, split_name(split)},
                    [&](const Row& r) { out.push_back({r.integer(0), r.real(1), r.real(2)}); });
  return out;
}

std::vector<Event> Hub::events(int64_t run_id, Page page) {
  std::lock_guard lock(state_->mu);
  std::vector<Event> out;
  state_->db->query("SELECT id, kind, payload, time FROM events WHERE run_id = ? ORDER BY id LIMIT ? OFFSET ?",
                    {run_id, page.limit, page.offset},
                    [&](const Row& r) { out.push_back({r.integer(0), r.text(1), r.text(2), r.real(3)}); });
  return out;
}

}  // namespace strata::hub
