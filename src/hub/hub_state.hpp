// What a Hub and the Runs it made share: the connection (one at a time, under `mu`), the
// options, the blob folder, the loaded-model cache and the counters.
#pragma once
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "blob_files.hpp"
#include "database.hpp"
#include "model_cache.hpp"
#include "strata/hub/hub.hpp"
#include "strata/hub/shared_connection.hpp"

namespace strata::hub::detail {

struct HubState {
  HubState(std::unique_ptr<Database> database, HubOptions opts, std::string redacted_url,
           std::optional<BlobFiles> blob_files)
      : db(std::move(database)),
        options(std::move(opts)),
        url(std::move(redacted_url)),
        cache(options.cache_bytes),
        blob_files_(std::move(blob_files)) {}

  std::mutex mu;
  std::unique_ptr<Database> db;
  HubOptions options;
  std::string url;
  ModelCache cache;
  HubStats stats;

  // Where a SQLite hub on disk keeps its weight blobs; null for rows in the database.
  const BlobFiles* files() const { return blob_files_ ? &*blob_files_ : nullptr; }

  // The current project's id; with `create`, inside a write transaction, made if missing.
  std::optional<int64_t> project_id(bool create);
  void set_project(const std::string& name) {
    options.project = name;
    project_id_.reset();
  }

 private:
  std::optional<int64_t> project_id_;  // only ever a committed id
  std::optional<BlobFiles> blob_files_;
};

using hub::unix_now;  // strata/hub/shared_connection.hpp

}  // namespace strata::hub::detail
