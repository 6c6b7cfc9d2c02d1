// bench_hub: the hub's speed on this machine, on SQLite and on a throw-away PostgreSQL cluster:
// save and load of a model (200 MB by default) next to `cp` of the same bytes on the same disk
// (into the page cache, and through to the disk),
// logging throughput, listing the newest 100 of 100,000 runs and find_top_model over 10,000
// versions. Prints one table; `--explain` also prints SQLite's query plans of those queries.
//
//   bench_hub [--mb 200] [--dir DIR] [--backend sqlite|postgres|both] [--explain]
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "hub/postgres_cluster.hpp"
#include "strata/core/factory.hpp"
#include "strata/hub/hub.hpp"
#include "strata/hub/shared_connection.hpp"

namespace {

namespace fs = std::filesystem;
using namespace strata;
using Clock = std::chrono::steady_clock;

double seconds_of(const std::function<void()>& f) {
  const auto t0 = Clock::now();
  f();
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

double best_of(int reps, const std::function<void()>& setup, const std::function<void()>& f) {
  double best = 1e30;
  for (int i = 0; i < reps; ++i) {
    setup();
    best = std::min(best, seconds_of(f));
  }
  return best;
}

double median_ms(int reps, const std::function<void()>& f) {
  std::vector<double> t;
  for (int i = 0; i < reps; ++i) t.push_back(seconds_of(f) * 1e3);
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

// 4 MiB tensors adding up to about `bytes`, different for every `seed`.
io::NamedTensors model_of(int64_t bytes, uint64_t seed) {
  Generator g(seed);
  io::NamedTensors w;
  const int64_t per = int64_t{1} << 20;  // floats per tensor
  for (int64_t i = 0; bytes > 0; ++i, bytes -= per * 4)
    w.emplace_back("layer" + std::to_string(i) + "/W", rand({std::min(per, bytes / 4 + 1)}, kFloat32, &g));
  return w;
}

// Where a benchmark's hub lives: a fresh SQLite file or a fresh PostgreSQL database each time.
struct Backend {
  std::string name;
  fs::path dir;
  hub::testing::PostgresCluster* cluster = nullptr;
  int counter = 0;

  std::string fresh_url() {
    ++counter;
    if (cluster) {
      const std::string db = "bench_" + std::to_string(::getpid()) + "_" + std::to_string(counter);
      cluster->create_database(db);
      return cluster->url(db);
    }
    for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(dir / ("bench" + std::to_string(counter - 1) + ".db" + suffix));
    return (dir / ("bench" + std::to_string(counter) + ".db")).string();
  }
};

// Inserts rows in statements of up to 500 rows, in one transaction.
void bulk_insert(hub::Database& db, const std::string& head, int columns, int64_t rows,
                 const std::function<hub::Params(int64_t)>& row) {
  db.transaction(true, [&] {
    for (int64_t at = 0; at < rows;) {
      const int64_t n = std::min<int64_t>(500, rows - at);
      std::string sql = head + " VALUES ";
      hub::Params params;
      for (int64_t i = 0; i < n; ++i, ++at) {
        sql += i ? ", (" : "(";
        for (int c = 0; c < columns; ++c) sql += c ? ", ?" : "?";
        sql += ")";
        auto r = row(at);
        params.insert(params.end(), r.begin(), r.end());
      }
      db.execute(sql, params);
    }
  });
}

void explain(hub::Database& db, const std::string& what, const std::string& sql, const hub::Params& p) {
  std::printf("  %s:\n", what.c_str());
  db.query("EXPLAIN QUERY PLAN " + sql, p, [](const hub::Row& r) { std::printf("    %s\n", r.text(3).c_str()); });
}

void row(const char* backend, const char* what, double value, const char* unit, const std::string& note = "") {
  std::printf("%-10s %-44s %12.1f %-9s %s\n", backend, what, value, unit, note.c_str());
}

void run_backend(Backend& b, int64_t model_bytes, bool show_plans) {
  const char* name = b.name.c_str();
  // --- save and load of one big model, against cp of its safetensors file ---
  const auto weights = model_of(model_bytes, 1);
  const double mb = static_cast<double>(io::safetensors_size(weights)) / 1e6;
  if (!b.cluster) {
    const fs::path src = b.dir / "model.safetensors", dst = b.dir / "copy.safetensors";
    io::save_safetensors(src.string(), weights);
    const double cp = best_of(3, [&] { fs::remove(dst); },
                              [&] { std::system(("cp '" + src.string() + "' '" + dst.string() + "'").c_str()); });
    row("disk", ("cp of the " + std::to_string(static_cast<int>(mb)) + " MB safetensors file").c_str(), mb / cp, "MB/s");
    // save_model ends on the disk (SQLite's checkpoint fsyncs the database file), so the copy
    // it is fairly compared with ends there too.
    const double durable = best_of(3, [&] { fs::remove(dst); }, [&] {
      std::system(("cp '" + src.string() + "' '" + dst.string() + "' && sync '" + dst.string() + "'").c_str());
    });
    row("disk", "cp, then fsync of the copy (sync FILE)", mb / durable, "MB/s");
    fs::remove(src);
    fs::remove(dst);
  }
  std::string url;
  const double save = best_of(3, [&] { url = b.fresh_url(); }, [&] { hub::Hub::open(url).save_model("big", weights); });
  row(name, "save_model (fresh hub)", mb / save, "MB/s");
  hub::Hub reader = hub::Hub::open(url, {.cache_bytes = 0});
  const double load = best_of(3, [] {}, [&] { reader.load_model("big"); });
  row(name, "load_model (no cache)", mb / load, "MB/s");

  // --- logging ---
  url = b.fresh_url();
  hub::Hub hub = hub::Hub::open(url);
  const int64_t points = 500'000;
  {
    hub::Run run = hub.create_run("log");
    const double s = seconds_of([&] {
      for (int64_t i = 0; i < points; ++i) run.log(i, hub::Split::train, "loss", 1.0 / (i + 1));
      run.flush();
    });
    row(name, "Run::log, then flush (500,000 points)", points / s, "points/s");
  }

  // --- listing 100,000 runs and ranking 10,000 versions (rows inserted in bulk) ---
  hub::SharedConnection connection(hub);  // the hub's connection, one call at a time between the hub's
  const int64_t pid = *connection.lock().db().query_int("SELECT id FROM projects WHERE name = 'default'");
  const double now = hub::unix_now();
  bulk_insert(
      connection.lock().db(), "INSERT INTO runs (project_id, name, status, config, created_at)", 5, 100'000,
      [&](int64_t i) {
        return hub::Params{pid, std::string_view("run"), std::string_view("finished"), std::string_view("{}"), now + i};
      });
  size_t listed = 0;
  // Timed first: the note reads what the timed calls found (argument order is unspecified).
  double ms = median_ms(21, [&] { listed = hub.list_runs({.limit = 100}).size(); });
  row(name, "list_runs: newest 100 of 100,000", ms, "ms",
      listed == 100 ? "" : "(wrong count: " + std::to_string(listed) + ")");

  hub.save_model("ranked", model_of(4096, 2), {.metrics = {{"accuracy", 0.5}}});
  const auto first = *hub.model_info("ranked");
  const int64_t versions = 10'000;
  {
    auto session = connection.lock();
    session.db().transaction(true, [&] {
      session.db().execute("DELETE FROM model_metrics");
      session.db().execute("DELETE FROM models");
    });
  }
  bulk_insert(connection.lock().db(),
              "INSERT INTO models (id, project_id, name, version, architecture, blob_sha256, blob_size, metrics, tags, "
              "user_values, created_at)",
              11, versions, [&](int64_t i) {
                return hub::Params{i + 1,
                                   pid,
                                   std::string_view("ranked"),
                                   i + 1,
                                   std::string_view(""),
                                   std::string_view(first.sha256),
                                   first.size_bytes,
                                   std::string_view("{}"),
                                   std::string_view("[]"),
                                   std::string_view("{}"),
                                   now + i};
              });
  // Scores peak at version 7,777, so the winner is neither the first nor the last row.
  bulk_insert(connection.lock().db(), "INSERT INTO model_metrics (model_id, name, value)", 3, versions, [&](int64_t i) {
    return hub::Params{i + 1, std::string_view("accuracy"), 1.0 - std::abs(static_cast<double>(i - 7776)) / versions};
  });
  connection.lock().db().execute("UPDATE model_names SET last_version = ?", {versions});
  if (b.cluster) connection.lock().db().execute("SELECT setval('models_id_seq', ?)", {versions});
  int64_t top = 0;
  ms = median_ms(21, [&] { top = hub.find_top_model("ranked", "accuracy")->info.version; });
  row(name, "find_top_model over 10,000 versions", ms, "ms", top == 7777 ? "" : "(wrong winner: " + std::to_string(top) + ")");
  row(name, "list_models: newest 100 of 10,000", median_ms(21, [&] { listed = hub.list_models("ranked", {.limit = 100}).size(); }),
      "ms");

  if (show_plans && !b.cluster) {
    std::printf("\nSQLite's plans:\n");
    explain(connection.lock().db(), "list_runs",
            "SELECT * FROM runs WHERE project_id = ? ORDER BY id DESC LIMIT 100 OFFSET 0", {pid});
    explain(connection.lock().db(), "list_models",
            "SELECT * FROM models m WHERE m.project_id = ? AND m.name = ? ORDER BY m.id DESC LIMIT 100 OFFSET 0",
            {pid, std::string_view("ranked")});
    explain(connection.lock().db(), "find_top_model",
            "SELECT m.id FROM models m JOIN model_metrics mm ON mm.model_id = m.id AND mm.name = ? "
            "WHERE m.project_id = ? AND m.name = ? ORDER BY mm.value DESC, m.version DESC LIMIT 1",
            {std::string_view("accuracy"), pid, std::string_view("ranked")});
    explain(connection.lock().db(), "find_datasets",
            "SELECT * FROM datasets d WHERE d.project_id = ? ORDER BY d.id DESC LIMIT 100 OFFSET 0", {pid});
    explain(connection.lock().db(), "metric_history",
            "SELECT step, value, time FROM metrics WHERE run_id = ? AND name = ? AND split = ? ORDER BY step, time",
            {int64_t{1}, std::string_view("loss"), std::string_view("train")});
    std::printf("\n");
  }
}

}  // namespace

int main(int argc, char** argv) {
  int64_t mb = 200;
  std::string dir = ".", backend = "both";
  bool show_plans = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--mb" && i + 1 < argc) mb = std::stoll(argv[++i]);
    else if (a == "--dir" && i + 1 < argc) dir = argv[++i];
    else if (a == "--backend" && i + 1 < argc) backend = argv[++i];
    else if (a == "--explain") show_plans = true;
    else {
      std::fprintf(stderr, "usage: bench_hub [--mb 200] [--dir DIR] [--backend sqlite|postgres|both] [--explain]\n");
      return 2;
    }
  }
  const fs::path work = fs::path(dir) / ("bench_hub_" + std::to_string(::getpid()));
  fs::create_directories(work);
  std::printf("%-10s %-44s %12s %-9s\n", "backend", "what", "value", "unit");
  try {
    if (backend != "postgres") {
      Backend b{"sqlite", work};
      run_backend(b, mb << 20, show_plans);
    }
    if (backend != "sqlite") {
      Backend b{"postgres", work};
      b.cluster = hub::testing::PostgresCluster::get();
      if (b.cluster) run_backend(b, mb << 20, false);
      else std::printf("postgres   skipped: %s\n", hub::testing::PostgresCluster::why().c_str());
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_hub: %s\n", e.what());
    fs::remove_all(work);
    return 1;
  }
  fs::remove_all(work);
  return 0;
}
