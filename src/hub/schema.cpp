// Migrations, written once for both dialects: {id}, {int}, {real} and {blob} become each
// backend's types, and a leading {postgres} marks a statement for PostgreSQL only (PostgreSQL's INTEGER is 32-bit, so integers are BIGINT there).
#include "schema.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace strata::hub::detail {
namespace {

// Migration n (1-based) brings the schema from version n-1 to n. Never edit a released one:
// append another (the schema version is the length of this list).
const std::vector<std::vector<const char*>> kMigrations = {
    {
        R"(CREATE TABLE projects (
             id {id}, name TEXT NOT NULL UNIQUE, created_at {real} NOT NULL))",
        R"(CREATE TABLE blobs (
             sha256 TEXT PRIMARY KEY, size {int} NOT NULL, chunk_count {int} NOT NULL,
             created_at {real} NOT NULL))",
        R"(CREATE TABLE blob_chunks (
             sha256 TEXT NOT NULL REFERENCES blobs(sha256) ON DELETE CASCADE,
             idx {int} NOT NULL, data {blob} NOT NULL, PRIMARY KEY (sha256, idx)))",
        R"(CREATE TABLE runs (
             id {id}, project_id {int} NOT NULL REFERENCES projects(id), name TEXT NOT NULL,
             status TEXT NOT NULL, config TEXT NOT NULL, created_at {real} NOT NULL,
             finished_at {real}))",
        "CREATE INDEX runs_by_project ON runs (project_id, id)",
        // The last version handed out per model name, so a deleted version is never reused.
        R"(CREATE TABLE model_names (
             project_id {int} NOT NULL REFERENCES projects(id), name TEXT NOT NULL,
             last_version {int} NOT NULL, PRIMARY KEY (project_id, name)))",
        R"(CREATE TABLE models (
             id {id}, project_id {int} NOT NULL REFERENCES projects(id), name TEXT NOT NULL,
             version {int} NOT NULL, architecture TEXT NOT NULL,
             blob_sha256 TEXT NOT NULL REFERENCES blobs(sha256), blob_size {int} NOT NULL,
             metrics TEXT NOT NULL, tags TEXT NOT NULL, user_values TEXT NOT NULL,
             dataset_id {int}, run_id {int} REFERENCES runs(id) ON DELETE SET NULL,
             created_at {real} NOT NULL, UNIQUE (project_id, name, version)))",
        "CREATE INDEX models_by_blob ON models (blob_sha256)",
        "CREATE INDEX models_by_time ON models (project_id, id)",
        R"(CREATE TABLE model_metrics (
             model_id {int} NOT NULL REFERENCES models(id) ON DELETE CASCADE, name TEXT NOT NULL,
             value {real} NOT NULL, PRIMARY KEY (model_id, name)))",
        "CREATE INDEX model_metrics_by_value ON model_metrics (name, value)",
        R"(CREATE TABLE model_tags (
             model_id {int} NOT NULL REFERENCES models(id) ON DELETE CASCADE, tag TEXT NOT NULL,
             PRIMARY KEY (model_id, tag)))",
        "CREATE INDEX model_tags_by_tag ON model_tags (tag)",
        R"(CREATE TABLE model_values (
             model_id {int} NOT NULL REFERENCES models(id) ON DELETE CASCADE, key TEXT NOT NULL,
             value TEXT NOT NULL, PRIMARY KEY (model_id, key)))",
        R"(CREATE TABLE metrics (
             run_id {int} NOT NULL REFERENCES runs(id) ON DELETE CASCADE, step {int} NOT NULL,
             split TEXT NOT NULL, name TEXT NOT NULL, value {real} NOT NULL, time {real} NOT NULL))",
        "CREATE INDEX metrics_by_run ON metrics (run_id, name, split, step)",
        R"(CREATE TABLE events (
             id {id}, run_id {int} NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
             kind TEXT NOT NULL, payload TEXT NOT NULL, time {real} NOT NULL))",
        "CREATE INDEX events_by_run ON events (run_id, id)",
    },
    {
        // The workflow's queue (src/workflow): plans, tasks, their dependencies and tags.
        R"(CREATE TABLE plans (
             id {id}, project_id {int} NOT NULL REFERENCES projects(id), name TEXT NOT NULL,
             created_at {real} NOT NULL))",
        // `waiting` counts dependencies not yet succeeded: a task is leasable at 0.
        R"(CREATE TABLE tasks (
             id {id}, project_id {int} NOT NULL REFERENCES projects(id),
             plan_id {int} REFERENCES plans(id), name TEXT NOT NULL, kind TEXT NOT NULL,
             params TEXT NOT NULL, input_dataset TEXT NOT NULL, model TEXT NOT NULL,
             output_dataset TEXT NOT NULL, priority {int} NOT NULL, tags TEXT NOT NULL,
             status TEXT NOT NULL, waiting {int} NOT NULL, attempts {int} NOT NULL,
             max_attempts {int} NOT NULL, retry_delay {real} NOT NULL, not_before {real} NOT NULL,
             worker TEXT NOT NULL, lease_expires_at {real}, result TEXT, error TEXT NOT NULL,
             log_tail TEXT NOT NULL, created_at {real} NOT NULL, leased_at {real},
             started_at {real}, finished_at {real}))",
        "CREATE INDEX tasks_ready ON tasks (project_id, status, waiting, priority DESC, id)",
        "CREATE INDEX tasks_by_plan ON tasks (plan_id, status)",
        "CREATE INDEX tasks_by_lease ON tasks (status, lease_expires_at)",
        R"(CREATE TABLE task_deps (
             task_id {int} NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
             depends_on {int} NOT NULL REFERENCES tasks(id), PRIMARY KEY (task_id, depends_on)))",
        "CREATE INDEX task_deps_by_dependency ON task_deps (depends_on)",
        R"(CREATE TABLE task_tags (
             task_id {int} NOT NULL REFERENCES tasks(id) ON DELETE CASCADE, tag TEXT NOT NULL,
             PRIMARY KEY (task_id, tag)))",
    },
    {
        // Datasets: versioned like models; their bytes live in the same content-addressed blobs.
        R"(CREATE TABLE dataset_names (
             project_id {int} NOT NULL REFERENCES projects(id), name TEXT NOT NULL,
             last_version {int} NOT NULL, PRIMARY KEY (project_id, name)))",
        R"(CREATE TABLE datasets (
             id {id}, project_id {int} NOT NULL REFERENCES projects(id), name TEXT NOT NULL,
             version {int} NOT NULL, kind TEXT NOT NULL, description TEXT NOT NULL,
             user_values TEXT NOT NULL, entries {int} NOT NULL,
             blob_sha256 TEXT NOT NULL REFERENCES blobs(sha256), blob_size {int} NOT NULL,
             created_at {real} NOT NULL, UNIQUE (project_id, name, version)))",
        "CREATE INDEX datasets_by_blob ON datasets (blob_sha256)",
        "CREATE INDEX datasets_by_time ON datasets (project_id, id)",
        "CREATE INDEX models_by_dataset ON models (dataset_id)",
    },
    {
        // Blobs of a SQLite hub on disk as files beside the database (src/hub/blob_files.hpp):
        // the file's name, and the SHA-256 of each block of block_bytes, checked when loading.
        // NULL file: the blob is in blob_chunks, as before.
        "ALTER TABLE blobs ADD COLUMN file TEXT",
        "ALTER TABLE blobs ADD COLUMN block_bytes {int}",
        "ALTER TABLE blobs ADD COLUMN block_sha256 TEXT",
    },
    {
        // Weights do not compress: PostgreSQL's TOAST would try pglz on every 4 MiB chunk first.
        "{postgres} ALTER TABLE blob_chunks ALTER COLUMN data SET STORAGE EXTERNAL",
    },
    {
        // The workflow's earlier runs of a task that a user re-queued (Queue::retry): how each
        // ended, since the task's own row is reset for the new run. `attempts` is the task's
        // attempt number when that run ended (fencing numbers keep counting across runs).
        R"(CREATE TABLE task_runs (
             task_id {int} NOT NULL REFERENCES tasks(id) ON DELETE CASCADE, attempts {int} NOT NULL,
             status TEXT NOT NULL, worker TEXT NOT NULL, error TEXT NOT NULL, log_tail TEXT NOT NULL,
             max_attempts {int} NOT NULL, leased_at {real}, started_at {real}, finished_at {real},
             retried_at {real} NOT NULL))",
        "CREATE INDEX task_runs_by_task ON task_runs (task_id, attempts)",
    },
};

// "{postgres} ..." statements run on PostgreSQL only: for_dialect makes them empty elsewhere.
std::string for_dialect(std::string sql, Dialect d) {
  const bool pg = d == Dialect::postgres;
  constexpr std::string_view kPostgresOnly = "{postgres} ";
  if (sql.starts_with(kPostgresOnly)) {
    if (!pg) return "";
    sql.erase(0, kPostgresOnly.size());
  }
  const std::pair<const char*, const char*> words[] = {
      {"{id}", pg ? "BIGSERIAL PRIMARY KEY" : "INTEGER PRIMARY KEY"},
      {"{int}", pg ? "BIGINT" : "INTEGER"},
      {"{real}", pg ? "DOUBLE PRECISION" : "REAL"},
      {"{blob}", pg ? "BYTEA" : "BLOB"},
  };
  for (const auto& [from, to] : words)
    for (size_t at; (at = sql.find(from)) != std::string::npos;) sql.replace(at, std::string(from).size(), to);
  return sql;
}

// An arbitrary constant: the advisory lock PostgreSQL sessions take while migrating.
constexpr int64_t kMigrationLock = 0x5354524154410001;

}  // namespace

int64_t schema_version() { return static_cast<int64_t>(kMigrations.size()); }

void migrate(Database& db) { migrate(db, schema_version()); }

void migrate(Database& db, int64_t version) {
  const int64_t kSchemaVersion = schema_version();
  STRATA_CHECK(version >= 1 && version <= kSchemaVersion, "hub: cannot migrate to schema version ",
               std::to_string(version), ", expected 1 to ", std::to_string(kSchemaVersion));
  try {  // the common case, without taking the write lock: already up to date
    if (db.query_int("SELECT MAX(version) FROM schema_version") == version) return;
  } catch (const Error&) {
    // no schema_version table yet
  }
  db.transaction(true, [&] {
    db.lock_for_transaction(kMigrationLock);
    db.execute(for_dialect("CREATE TABLE IF NOT EXISTS schema_version (version {int} NOT NULL)", db.dialect()));
    const int64_t current = db.query_int("SELECT MAX(version) FROM schema_version").value_or(0);
    STRATA_CHECK(current <= kSchemaVersion, "hub: the database's schema is version ", std::to_string(current),
                 ", newer than this build of Strata knows (", std::to_string(kSchemaVersion), ")");
    for (int64_t v = current + 1; v <= version; ++v) {
      for (const char* sql : kMigrations[v - 1])
        if (const std::string stmt = for_dialect(sql, db.dialect()); !stmt.empty()) db.execute(stmt);
      db.execute("INSERT INTO schema_version (version) VALUES (?)", {v});
    }
  });
}

}  // namespace strata::hub::detail
