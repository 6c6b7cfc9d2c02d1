// The queue's workers' side. Every change to a leased task is fenced by (id, attempt, worker):
// an UPDATE that names a lease which is no longer current changes nothing, and the caller is
// told so. PostgreSQL leases with one `UPDATE ... WHERE id = (SELECT ... FOR UPDATE SKIP LOCKED)`
// (concurrent workers skip each other's rows instead of waiting); SQLite inside BEGIN IMMEDIATE.
#include <algorithm>
#include <cmath>

#include "staged_output.hpp"
#include "strata/workflow/queue.hpp"
#include "task_rows.hpp"

namespace strata::workflow {

using hub::Dialect;
using hub::unix_now;
using namespace detail;

namespace detail {

// Prepared once per text by the backend, so a worker pays for planning them once.
std::string ready_sql(size_t n_kinds, size_t n_tags, bool due_now) {
  return std::string("SELECT t.id FROM tasks t WHERE t.project_id = ? AND t.status = 'pending' AND t.waiting = 0 ") +
         (due_now ? "AND t.not_before <= ? " : "") + "AND t.kind IN (" + placeholders(n_kinds) + ") AND NOT EXISTS "
         "(SELECT 1 FROM task_tags g WHERE g.task_id = t.id" +
         (n_tags ? " AND g.tag NOT IN (" + placeholders(n_tags) + ")" : std::string()) + ")";
}

std::string lease_sql(Dialect dialect, size_t n_kinds, size_t n_tags, bool start) {
  std::string pick = ready_sql(n_kinds, n_tags, true) + " ORDER BY t.priority DESC, t.id LIMIT " + (start ? "?" : "1");
  // PostgreSQL takes no lock before the statement, whose snapshot may see a dependency that
  // committed after the worker read its clock: leased_at is then the later of that reading and
  // the moment the row is updated, so it is never earlier than the dependency's finish.
  std::string leased_at = "?";
  std::string ids = "id IN (" + pick + ")";
  if (dialect == Dialect::postgres) {
    // Through an array: PostgreSQL could otherwise run a LIMIT subquery under IN more than once.
    ids = "id = ANY(ARRAY(" + pick + " FOR UPDATE SKIP LOCKED))";
    leased_at = "GREATEST(CAST(? AS DOUBLE PRECISION), CAST(EXTRACT(EPOCH FROM clock_timestamp()) AS DOUBLE PRECISION))";
  }
  // Started tasks get started_at = leased_at here; the worker's commit writes the moment the
  // function really started (Lease::started_at).
  return std::string("UPDATE tasks SET status = '") + (start ? "running" : "leased") +
         "', attempts = attempts + 1, worker = ?, lease_expires_at = ?, leased_at = " + leased_at +
         ", started_at = " + (start ? leased_at : "NULL") + " WHERE " + ids + " RETURNING " + kTaskColumns;
}

}  // namespace detail

namespace {

constexpr const char* kHeld = "status IN ('leased', 'running')";
constexpr double kMaxRetryDelay = 300;  // seconds

// Runs `fn` as a write transaction on SQLite; on PostgreSQL a single statement is atomic by
// itself, so one round trip instead of three.
template <class F>
void atomically(Database& db, F&& fn) {
  if (db.dialect() == Dialect::postgres) fn();
  else db.transaction(true, fn);
}

Lease lease_of(const Row& r, const std::string& worker) {
  Lease l;
  l.task = task_from_row(r);
  l.worker = worker;
  l.attempt = l.task.attempts;
  l.expires_at = *l.task.lease_expires_at;
  return l;
}

// The lease statement, inside the caller's lock (and on SQLite its write transaction): the
// leases in the order lease() picks in.
std::vector<Lease> lease_rows(Database& db, int64_t project, const std::string& worker,
                              const std::vector<std::string>& kinds, const std::vector<std::string>& tags,
                              double lease_seconds, int max_tasks, bool start) {
  // On SQLite the time is read once the write lock is held, so that leased_at is never
  // earlier than the finish of a dependency that committed while this waited for the lock.
  const double now = unix_now();
  Params params{std::string_view(worker), now + lease_seconds, now};
  if (start) params.emplace_back(now);
  params.emplace_back(project);
  params.emplace_back(now);
  for (const auto& k : kinds) params.emplace_back(std::string_view(k));
  for (const auto& t : tags) params.emplace_back(std::string_view(t));
  if (start) params.emplace_back(int64_t{max_tasks});
  std::vector<Lease> out;
  db.query(lease_sql(db.dialect(), kinds.size(), tags.size(), start), params,
           [&](const Row& r) { out.push_back(lease_of(r, worker)); });
  // RETURNING gives no order.
  std::sort(out.begin(), out.end(), [](const Lease& a, const Lease& b) {
    return a.task.priority != b.task.priority ? a.task.priority > b.task.priority : a.task.id < b.task.id;
  });
  return out;
}

}  // namespace

std::optional<Lease> Queue::lease(const std::string& worker, const std::vector<std::string>& kinds,
                                  const std::vector<std::string>& tags, double lease_seconds) {
  auto leases = take(worker, kinds, tags, lease_seconds, 1, false);
  if (leases.empty()) return std::nullopt;
  return std::move(leases[0]);
}

std::vector<Lease> Queue::lease_and_start(const std::string& worker, const std::vector<std::string>& kinds,
                                          const std::vector<std::string>& tags, double lease_seconds, int max_tasks) {
  STRATA_CHECK(max_tasks >= 1, "Queue::lease_and_start: max_tasks must be at least 1, got ", std::to_string(max_tasks));
  return take(worker, kinds, tags, lease_seconds, max_tasks, true);
}

std::vector<Lease> Queue::take(const std::string& worker, const std::vector<std::string>& kinds,
                               const std::vector<std::string>& tags, double lease_seconds, int max_tasks, bool start) {
  STRATA_CHECK(!worker.empty(), "Queue::lease: the worker id is empty");
  STRATA_CHECK(!kinds.empty(), "Queue::lease: worker \"", worker, "\" offers no task kinds");
  STRATA_CHECK(lease_seconds > 0, "Queue::lease: lease_seconds must be positive, got ", std::to_string(lease_seconds));
  bool reclaim_due = false;
  {
    auto session = connection_.lock();
    reclaim_due = unix_now() - last_reclaim_ > 0.25;
  }
  if (reclaim_due) reclaim_expired();
  auto session = connection_.lock();
  Database& db = session.db();
  auto project = session.project_id(false);
  if (!project) return {};
  std::vector<Lease> out;
  atomically(db, [&] { out = lease_rows(db, *project, worker, kinds, tags, lease_seconds, max_tasks, start); });
  return out;
}

bool Queue::has_ready(const std::vector<std::string>& kinds, const std::vector<std::string>& tags) {
  auto session = connection_.lock();
  auto project = session.project_id(false);
  if (!project || kinds.empty()) return false;
  Params params{*project};
  for (const auto& k : kinds) params.emplace_back(std::string_view(k));
  for (const auto& t : tags) params.emplace_back(std::string_view(t));
  return session.db().query_int(ready_sql(kinds.size(), tags.size(), false) + " LIMIT 1", params).has_value();
}

bool Queue::start(const Lease& lease) {
  auto session = connection_.lock();
  return session.db()
      .query_int(
          "UPDATE tasks SET status = 'running', started_at = ? WHERE id = ? AND attempts = ? AND worker = ? "
          "AND status = 'leased' RETURNING id",
          {unix_now(), lease.task.id, lease.attempt, std::string_view(lease.worker)})
      .has_value();
}

bool Queue::heartbeat(Lease& lease, double lease_seconds) {
  auto session = connection_.lock();
  const double expires = unix_now() + lease_seconds;
  const bool held = session.db()
                        .query_int(std::string("UPDATE tasks SET lease_expires_at = ? WHERE id = ? AND attempts = ? "
                                               "AND worker = ? AND ") +
                                       kHeld + " RETURNING id",
                                   {expires, lease.task.id, lease.attempt, std::string_view(lease.worker)})
                        .has_value();
  if (held) lease.expires_at = expires;
  return held;
}

namespace {

// The success of a current attempt: status, result, log tail, finish and start times.
std::string succeed_sql() {
  return std::string("UPDATE tasks SET status = 'succeeded', result = ?, log_tail = ?, error = '', finished_at = ?, "
                     "started_at = COALESCE(?, started_at), lease_expires_at = NULL WHERE id = ? AND attempts = ? "
                     "AND worker = ? AND ") + kHeld + " RETURNING id";
}

// Releasing the dependents of a task that succeeded: each waits for one dependency fewer.
constexpr const char* kRelease =
    "UPDATE tasks SET waiting = waiting - 1 WHERE id IN (SELECT task_id FROM task_deps WHERE depends_on IN ";

Param started(const Lease& lease) { return lease.started_at ? Param(*lease.started_at) : Param(nullptr); }

}  // namespace

bool Queue::complete(const Lease& lease, const std::string& result_json, const std::string& log_tail,
                     const TaskOutputs* outputs, NextLeases* next) {
  const bool with_outputs = outputs && !outputs->empty();
  nlohmann::json result;
  if (with_outputs) {
    result = nlohmann::json::parse(result_json.empty() ? "{}" : result_json);
    if (result.is_null()) result = nlohmann::json::object();
    if (!result.is_object()) result = nlohmann::json{{"value", result}};
  }
  auto session = connection_.lock();
  Database& db = session.db();
  const double now = unix_now();
  Params params{std::string_view(result_json), std::string_view(log_tail), now, started(lease), lease.task.id,
                lease.attempt, std::string_view(lease.worker)};
  bool done = false;
  // The worker's next tasks, leased in the same commit (after the success, so a dependent it
  // released may be among them).
  auto lease_next = [&] {
    if (!next) return;
    const auto project = session.project_id(false);
    next->leased = project ? lease_rows(db, *project, lease.worker, next->kinds, next->tags, next->lease_seconds,
                                        next->max_tasks, true)
                           : std::vector<Lease>{};
  };
  if (db.dialect() == Dialect::postgres && !with_outputs) {
    // One statement: the success, its dependents released and the idle workers told, committed
    // together (its data-modifying CTEs see one snapshot; a dependent released by two tasks at
    // once is updated by the second after the first commits, from the committed value).
    params.emplace_back(std::string_view(kWorkChannel));
    const std::string sql = "WITH done AS (" + succeed_sql() + "), released AS (" + kRelease +
                            "(SELECT id FROM done)) RETURNING waiting) SELECT (SELECT COUNT(*) FROM done), "
                            "(SELECT COUNT(*) FROM (SELECT pg_notify(?, '') FROM released WHERE waiting = 0 LIMIT 1) n)";
    const auto run = [&] { db.query(sql, params, [&](const Row& r) { done = r.integer(0) > 0; }); };
    if (!next) run();
    else db.transaction(true, [&] {
      run();
      lease_next();
    });
    return done;
  }
  std::string stored;  // the result naming the versions written
  db.transaction(true, [&] {
    done = db.query_int(succeed_sql(), params).has_value();
    if (done && with_outputs) {
      result["outputs"] = write_outputs(session, *outputs);
      stored = result.dump();
      db.execute("UPDATE tasks SET result = ? WHERE id = ?", {std::string_view(stored), lease.task.id});
    }
    if (done) {  // (a stale lease writes nothing of its attempt)
      bool released = false;
      db.query(std::string(kRelease) + "(?)) RETURNING waiting", {lease.task.id},
               [&](const Row& r) { released = released || r.integer(0) == 0; });
      if (released) db.notify(kWorkChannel);
    }
    lease_next();
  });
  return done;
}

bool Queue::wait_for_work(double seconds) {
  auto session = connection_.lock();
  return session.db().wait_for_notification(kWorkChannel, seconds);
}

namespace {

// Inside a write transaction: the attempt of a task that holds it ends with `error`; it goes
// back to pending after its back-off, or fails for good and cancels its dependents.
FailOutcome end_attempt(Database& db, int64_t id, int64_t attempt, const std::string& worker, const std::string& error,
                        const std::string* log_tail, bool permanent, bool back_off) {
  std::optional<int64_t> max_attempts;
  double delay = 0;
  std::string name;
  db.query(std::string("SELECT max_attempts, retry_delay, name FROM tasks WHERE id = ? AND attempts = ? AND worker = ? AND ") +
               kHeld + (db.dialect() == Dialect::postgres ? " FOR UPDATE" : ""),
           {id, attempt, std::string_view(worker)}, [&](const Row& r) {
             max_attempts = r.integer(0);
             delay = r.real(1);
             name = r.text(2);
           });
  if (!max_attempts) return FailOutcome::refused;
  const double now = unix_now();
  const std::string_view tail = log_tail ? std::string_view(*log_tail) : std::string_view();
  if (permanent || attempt >= *max_attempts) {
    db.execute(std::string("UPDATE tasks SET status = 'failed', error = ?, finished_at = ?, lease_expires_at = NULL") +
                   (log_tail ? ", log_tail = ?" : "") + " WHERE id = ?",
               log_tail ? Params{std::string_view(error), now, tail, id} : Params{std::string_view(error), now, id});
    cancel_dependents(db, id, "dependency " + std::to_string(id) + " (" + name + ") failed: " + error, now);
    return FailOutcome::failed;
  }
  const double not_before = back_off ? now + std::min(kMaxRetryDelay, delay * std::pow(2.0, attempt - 1)) : now;
  db.execute(std::string("UPDATE tasks SET status = 'pending', error = ?, not_before = ?, lease_expires_at = NULL") +
                 (log_tail ? ", log_tail = ?" : "") + " WHERE id = ?",
             log_tail ? Params{std::string_view(error), not_before, tail, id} : Params{std::string_view(error), not_before, id});
  return FailOutcome::retrying;
}

}  // namespace

FailOutcome Queue::fail(const Lease& lease, const std::string& error, const std::string& log_tail, bool permanent) {
  auto session = connection_.lock();
  Database& db = session.db();
  FailOutcome outcome = FailOutcome::refused;
  db.transaction(true, [&] {
    outcome = end_attempt(db, lease.task.id, lease.attempt, lease.worker, error, &log_tail, permanent, true);
    if (outcome != FailOutcome::refused && lease.started_at)
      db.execute("UPDATE tasks SET started_at = ? WHERE id = ?", {*lease.started_at, lease.task.id});
  });
  return outcome;
}

int64_t Queue::reclaim_expired() {
  auto session = connection_.lock();
  Database& db = session.db();
  const double now = unix_now();
  last_reclaim_ = now;
  // A cheap read first: almost always nothing has expired, and then no write lock is taken.
  const std::string find = std::string("SELECT id, attempts, worker FROM tasks WHERE ") + kHeld + " AND lease_expires_at < ?";
  if (!db.query_int(find + " LIMIT 1", {now})) return 0;
  int64_t count = 0;
  db.transaction(true, [&] {
    count = 0;
    struct Expired {
      int64_t id, attempt;
      std::string worker;
    };
    std::vector<Expired> expired;
    db.query(find + (db.dialect() == Dialect::postgres ? " FOR UPDATE SKIP LOCKED" : ""), {now},
             [&](const Row& r) { expired.push_back({r.integer(0), r.integer(1), r.text(2)}); });
    for (const auto& e : expired) {
      const std::string why = "the lease of worker " + e.worker + " expired (attempt " + std::to_string(e.attempt) +
                              "): it stopped heartbeating";
      if (end_attempt(db, e.id, e.attempt, e.worker, why, nullptr, false, false) != FailOutcome::refused) ++count;
    }
  });
  return count;
}

}  // namespace strata::workflow
