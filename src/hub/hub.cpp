// Opening a hub, projects, and the counters; models are in model_store.cpp, runs in run_log.cpp.
#include "strata/hub/hub.hpp"

#include <algorithm>
#include <cctype>

#include "hub_state.hpp"
#include "strata/hub/hub_url.hpp"
#include "schema.hpp"

namespace strata::hub {

VersionRef parse_version_ref(const std::string& text) {
  const auto colon = text.rfind(':');
  if (colon != std::string::npos) {
    const std::string v = text.substr(colon + 1);
    if (v == "latest") return {text.substr(0, colon), kLatest};
    if (!v.empty() && std::all_of(v.begin(), v.end(), [](unsigned char c) { return std::isdigit(c); })) {
      STRATA_CHECK(v.size() < 19 && std::stoll(v) > 0, "expected a version >= 1 in '", text, "', got ", v);
      return {text.substr(0, colon), std::stoll(v)};
    }
  }
  STRATA_CHECK(!text.empty(), "expected a name (NAME or NAME:VERSION), got an empty one");
  return {text, kLatest};
}

using detail::HubState;

std::optional<int64_t> HubState::project_id(bool create) {
  if (project_id_) return project_id_;
  const std::string& name = options.project;
  auto id = db->query_int("SELECT id FROM projects WHERE name = ?", {name});
  if (id) project_id_ = id;  // committed before this transaction began, so safe to keep
  if (!id && create) {
    db->execute("INSERT INTO projects (name, created_at) VALUES (?, ?) ON CONFLICT (name) DO NOTHING",
                {name, detail::unix_now()});
    id = db->query_int("SELECT id FROM projects WHERE name = ?", {name});
  }
  return id;
}

Hub Hub::open(const std::string& url, HubOptions options) {
  STRATA_CHECK(!url.empty(), "Hub::open: expected a SQLite file path or a postgresql:// URL, got an empty string");
  STRATA_CHECK(!options.project.empty(), "Hub::open: the project name is empty");
  STRATA_CHECK(options.chunk_bytes > 0, "Hub::open: chunk_bytes must be positive");
  auto db = detail::open_database(url, options.busy_timeout_ms);
  detail::migrate(*db);
  std::optional<detail::BlobFiles> files;
  if (db->dialect() == detail::Dialect::sqlite) {
    if (std::string folder = detail::BlobFiles::folder_for(*sqlite_file(url)); !folder.empty()) {
      files.emplace(std::move(folder));
      files->sweep(*db);  // files left by saves that were killed
    }
  }
  return Hub(std::make_shared<HubState>(std::move(db), std::move(options), detail::redact_url(url), std::move(files)));
}

Hub::Hub(std::shared_ptr<HubState> state) : state_(std::move(state)) {}
Hub::Hub(Hub&&) noexcept = default;
Hub& Hub::operator=(Hub&&) noexcept = default;
Hub::~Hub() = default;

std::string Hub::project() const {
  std::lock_guard lock(state_->mu);
  return state_->options.project;
}

void Hub::set_project(const std::string& name) {
  STRATA_CHECK(!name.empty(), "Hub::set_project: the project name is empty");
  std::lock_guard lock(state_->mu);
  state_->set_project(name);  // Runs already made keep writing to their own run ids
}

std::vector<std::string> Hub::list_projects() {
  std::lock_guard lock(state_->mu);
  std::vector<std::string> out;
  state_->db->query("SELECT name FROM projects ORDER BY name", {}, [&](const detail::Row& r) { out.push_back(r.text(0)); });
  return out;
}

HubStats Hub::stats() const {
  std::lock_guard lock(state_->mu);
  HubStats s = state_->stats;
  s.cached_bytes = state_->cache.bytes();
  return s;
}

StoreSize Hub::store_size() {
  std::lock_guard lock(state_->mu);
  StoreSize s;
  if (auto pid = state_->project_id(false))
    s.models = state_->db->query_int("SELECT COUNT(*) FROM models WHERE project_id = ?", {*pid}).value_or(0);
  state_->db->query("SELECT COUNT(*), CAST(COALESCE(SUM(size), 0) AS BIGINT) FROM blobs", {}, [&](const detail::Row& r) {
    s.blobs = r.integer(0);
    s.blob_bytes = r.integer(1);
  });
  return s;
}

std::string Hub::url() const { return state_->url; }

}  // namespace strata::hub
