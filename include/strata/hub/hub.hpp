// Hub: the model life-cycle store. Models and their versions with content-addressed weights,
// versioned datasets, runs with their metric logs and events, grouped in projects; SQLite by default
// (Hub::open("strata.db")), PostgreSQL for a team (Hub::open("postgresql://user@host/db")).
//
// Every write is one transaction: a process killed mid-save leaves the hub as if the save had
// never started. Several processes may use one hub at once. A Hub is safe to share between
// threads (calls are serialised on its one connection).
#pragma once
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "strata/hub/dataset.hpp"
#include "strata/hub/model.hpp"
#include "strata/hub/run.hpp"
#include "strata/io/safetensors.hpp"

namespace strata::hub {

class SharedConnection;

struct HubOptions {
  std::string project = "default";
  size_t cache_bytes = size_t{512} << 20;  // the loaded-model cache's bound (0: no cache)
  size_t chunk_bytes = size_t{4} << 20;    // weight blobs are stored in rows of this size
  size_t log_batch = 4096;                 // a Run writes after this many buffered points
  // ... or when its oldest buffered point is this old (0: only by batch, flush and finish).
  std::chrono::milliseconds flush_interval{1000};
  int busy_timeout_ms = 60'000;            // how long a write waits for another writer
  // Test hook: called inside save_model's transaction after each weight chunk is written.
  std::function<void(int64_t chunk_index)> on_chunk_written;
};

// Counters of this Hub object (not of the database).
struct HubStats {
  int64_t blob_reads = 0;  // weight blobs read from the database
  int64_t cache_hits = 0;  // loads served by the cache
  size_t cached_bytes = 0;
};

// What the database holds in the current project (blobs: across projects).
struct StoreSize {
  int64_t models = 0;
  int64_t blobs = 0;
  int64_t blob_bytes = 0;
};

inline constexpr int64_t kLatest = 0;

// A model or dataset named with an optional version: "NAME" or "NAME:VERSION" (a number >= 1 or
// "latest"); a name may itself contain ':' (only a version-looking suffix is split off).
struct VersionRef {
  std::string name;
  int64_t version = kLatest;
};
VersionRef parse_version_ref(const std::string& text);

class Hub {
 public:
  // A path (or "sqlite://path") opens or creates a SQLite file; "postgresql://..." a server.
  static Hub open(const std::string& url, HubOptions options = {});
  Hub(Hub&&) noexcept;
  Hub& operator=(Hub&&) noexcept;
  ~Hub();

  // --- projects: names of models and runs are scoped to the current project ---
  std::string project() const;
  void set_project(const std::string& name);  // created when first written to
  std::vector<std::string> list_projects();

  // --- models ---
  // Stores a new version of `name` and returns its number (1 for the first). Identical weights
  // are stored once, whatever their name.
  int64_t save_model(const std::string& name, const io::NamedTensors& weights, const ModelMeta& meta = {});
  // kLatest (or "latest") for the newest version. Throws strata::Error when there is none, or
  // when the stored weights do not match their SHA-256 (naming the model and version).
  LoadedModel load_model(const std::string& name, int64_t version = kLatest);
  LoadedModel load_model(const std::string& name, std::string_view version);
  std::optional<ModelInfo> model_info(const std::string& name, int64_t version = kLatest);
  // The version of `name` with the best `metric` among those passing `filter`, loaded; ties
  // go to the newest version. Nothing when no version has that metric.
  std::optional<LoadedModel> find_top_model(const std::string& name, const std::string& metric,
                                            Order order = Order::descending, const ModelFilter& filter = {});
  // Versions newest first; `name` empty lists every model of the project.
  std::vector<ModelInfo> list_models(const std::string& name = "", Page page = {});
  // Deletes one version of `name` (kLatest: the newest), or every version; weight blobs no
  // other version uses go with them. Returns the number of versions deleted.
  int64_t delete_model(const std::string& name, int64_t version);
  int64_t delete_all_versions(const std::string& name);

  // --- datasets: versioned like models, their bytes content-addressed in the same blob store ---
  int64_t save_dataset(const std::string& name, const io::NamedTensors& tensors, const DatasetMeta& meta = {});
  int64_t save_dataset(const std::string& name, const DatasetFiles& files, const DatasetMeta& meta = {});
  // kLatest (or "latest") for the newest version; throws strata::Error when there is none or
  // the stored bytes are corrupted (naming the dataset and version).
  LoadedDataset load_dataset(const std::string& name, int64_t version = kLatest);
  LoadedDataset load_dataset(const std::string& name, std::string_view version);
  std::optional<DatasetInfo> dataset_info(const std::string& name, int64_t version = kLatest);
  // Versions whose name contains `name_part` (case-sensitive; empty: all), newest first.
  std::vector<DatasetInfo> find_datasets(const std::string& name_part = "", Page page = {});
  // Like delete_model: blobs no one else uses go too. Models that named a deleted version keep
  // their weights, and their dataset_id becomes empty.
  int64_t delete_dataset(const std::string& name, int64_t version);
  int64_t delete_all_dataset_versions(const std::string& name);

  // --- runs ---
  Run create_run(const std::string& name, const std::string& config_json = "{}");
  std::optional<RunInfo> run_info(int64_t run_id);
  std::vector<RunInfo> list_runs(Page page = {});  // newest first
  std::vector<MetricPoint> metric_history(int64_t run_id, const std::string& name, Split split);
  // At most about `max_points` (2 or more) points of a series, for a chart: the whole series when
  // it has no more; else points evenly spaced in step (from the first step, the first point at
  // or after each multiple of the spacing) and the last point. Read by index lookups, so a
  // series of millions of points costs about `max_points` of them, not a scan.
  MetricSample metric_sample(int64_t run_id, const std::string& name, Split split, int64_t max_points);
  // The metrics a run logged, with each split they were logged in, by name then split; the first
  // `limit` of them.
  std::vector<std::pair<std::string, Split>> metric_series(int64_t run_id, int64_t limit = INT64_MAX);
  std::vector<Event> events(int64_t run_id, Page page = {});  // oldest first
  std::vector<Event> latest_events(int64_t run_id, int64_t limit);  // the newest `limit`, oldest first

  HubStats stats() const;
  StoreSize store_size();
  std::string url() const;  // with any password hidden

 private:
  friend class SharedConnection;  // other modules' tables on this connection (shared_connection.hpp)
  explicit Hub(std::shared_ptr<detail::HubState> state);
  std::shared_ptr<detail::HubState> state_;
};

}  // namespace strata::hub
