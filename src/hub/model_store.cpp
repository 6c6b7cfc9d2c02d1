// Hub's model methods: saving a version in one transaction, loading through the cache, the
// top-model search, listing and deleting with the blobs nobody else references.
#include <cmath>
#include <set>

#include <nlohmann/json.hpp>

#include "blob_store.hpp"
#include "hub_state.hpp"
#include "staged_writes.hpp"
#include "strata/hub/hub.hpp"
#include "versions.hpp"

namespace strata::hub {
namespace {

using detail::Database;
using detail::HubState;
using detail::ModelCache;
using detail::Param;
using detail::Params;
using detail::Row;

constexpr const char* kModelColumns =
    "m.id, m.name, m.version, m.architecture, m.blob_sha256, m.blob_size, m.metrics, m.tags, m.user_values, "
    "m.dataset_id, m.run_id, m.created_at";

ModelInfo read_info(const Row& r) {
  ModelInfo info;
  info.id = r.integer(0);
  info.name = r.text(1);
  info.version = r.integer(2);
  info.meta.architecture = r.text(3);
  info.sha256 = r.text(4);
  info.size_bytes = r.integer(5);
  using detail::kModels;
  using detail::stored_column;
  info.meta.metrics =
      stored_column<std::map<std::string, double>>(r.text(6), kModels, info.name, info.version, "metrics");
  info.meta.tags = stored_column<std::vector<std::string>>(r.text(7), kModels, info.name, info.version, "tags");
  info.meta.values =
      stored_column<std::map<std::string, std::string>>(r.text(8), kModels, info.name, info.version, "user_values");
  if (!r.is_null(9)) info.meta.dataset_id = r.integer(9);
  if (!r.is_null(10)) info.meta.run_id = r.integer(10);
  info.created_at = r.real(11);
  return info;
}

std::string describe(const std::string& name, int64_t version) { return detail::describe(detail::kModels, name, version); }

std::optional<ModelInfo> lookup(HubState& s, const std::string& name, int64_t version) {
  const auto pid = s.project_id(false);
  if (!pid) return std::nullopt;
  std::optional<ModelInfo> out;
  const std::string sql = std::string("SELECT ") + kModelColumns + " FROM models m WHERE m.project_id = ? AND m.name = ?" +
                          (version == kLatest ? " ORDER BY m.version DESC LIMIT 1" : " AND m.version = ?");
  Params params{*pid, name};
  if (version != kLatest) params.push_back(version);
  s.db->query(sql, params, [&](const Row& r) { out = read_info(r); });
  return out;
}

// The weights of `info`, from the cache or the database; the caller gets its own copy.
io::NamedTensors weights_of(HubState& s, const ModelInfo& info) {
  ModelCache::Weights cached = s.cache.get(info.sha256);
  if (cached) {
    ++s.stats.cache_hits;
  } else {
    auto decoded = detail::read_blob(s, {info.sha256, info.size_bytes}, describe(info.name, info.version));
    ++s.stats.blob_reads;
    if (static_cast<size_t>(info.size_bytes) > s.cache.capacity()) return decoded;  // not kept: no copy needed
    cached = std::make_shared<const io::NamedTensors>(std::move(decoded));
    s.cache.put(info.sha256, cached, static_cast<size_t>(info.size_bytes));
  }
  io::NamedTensors out;
  out.reserve(cached->size());
  for (const auto& [n, t] : *cached) out.emplace_back(n, t.clone());
  return out;
}

// Loads in one read transaction, so a version deleted meanwhile by another process is either
// seen whole or not at all.
LoadedModel load(HubState& s, const std::string& name, int64_t version) {
  LoadedModel out;
  s.db->transaction(false, [&] {
    auto info = lookup(s, name, version);
    STRATA_CHECK(info.has_value(), "hub: no ", describe(name, version), " in project \"", s.options.project, "\"");
    out.weights = weights_of(s, *info);
    out.info = std::move(*info);
  });
  return out;
}

}  // namespace

namespace detail {

PreparedModel prepare_model(const std::string& name, const io::NamedTensors& weights, const ModelMeta& meta) {
  STRATA_CHECK(!name.empty(), "Hub::save_model: the model name is empty");
  for (const auto& [k, v] : meta.metrics)
    STRATA_CHECK(std::isfinite(v), "Hub::save_model: metric \"", k, "\" of model \"", name, "\" is ", std::to_string(v),
                 ", expected a finite number");
  PreparedModel m{.name = name, .weights = weights, .meta = meta};
  const std::set<std::string> tags(meta.tags.begin(), meta.tags.end());
  m.meta.tags.assign(tags.begin(), tags.end());
  try {
    m.metrics_json = nlohmann::json(meta.metrics).dump();
    m.tags_json = nlohmann::json(tags).dump();
    m.values_json = nlohmann::json(meta.values).dump();
  } catch (const nlohmann::json::exception& e) {
    throw Error("Hub::save_model: a metric, tag or value of model \"" + name + "\" is not valid UTF-8");
  }
  return m;
}

int64_t write_model(HubState& s, const PreparedModel& m) {
  const int64_t pid = *s.project_id(true);
  const ModelMeta& meta = m.meta;
  if (meta.dataset_id)
    STRATA_CHECK(s.db->query_int("SELECT 1 FROM datasets WHERE id = ?", {*meta.dataset_id}),
                 "Hub::save_model: model \"", m.name, "\" names dataset id ", std::to_string(*meta.dataset_id),
                 ", expected the id of a stored dataset version (Hub::dataset_info(name, version)->id)");
  put_blob(s, *m.blob, m.weights);
  const int64_t version = allocate_version(*s.db, kModels, pid, m.name);
  const Param dataset = meta.dataset_id ? Param(*meta.dataset_id) : Param(nullptr);
  const Param run = meta.run_id ? Param(*meta.run_id) : Param(nullptr);
  const int64_t id = *s.db->query_int(
      "INSERT INTO models (project_id, name, version, architecture, blob_sha256, blob_size, metrics, tags, "
      "user_values, dataset_id, run_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
      {pid, m.name, version, meta.architecture, m.blob->id.sha256, m.blob->id.size, m.metrics_json, m.tags_json, m.values_json,
       dataset, run, unix_now()});
  for (const auto& [k, v] : meta.metrics)
    s.db->execute("INSERT INTO model_metrics (model_id, name, value) VALUES (?, ?, ?)", {id, k, v});
  for (const auto& t : meta.tags) s.db->execute("INSERT INTO model_tags (model_id, tag) VALUES (?, ?)", {id, t});
  for (const auto& [k, v] : meta.values)
    s.db->execute("INSERT INTO model_values (model_id, key, value) VALUES (?, ?, ?)", {id, k, v});
  return version;
}

}  // namespace detail

int64_t Hub::save_model(const std::string& name, const io::NamedTensors& weights, const ModelMeta& meta) {
  const detail::PreparedModel model = detail::prepare_model(name, weights, meta);
  // Hashing (and writing a blob file) reads every weight; done before taking the lock so other
  // threads proceed.
  detail::stage_blob(*state_, *model.blob, weights);
  std::lock_guard lock(state_->mu);
  int64_t version = 0;
  state_->db->transaction(true, [&] { version = detail::write_model(*state_, model); });
  return version;
}

LoadedModel Hub::load_model(const std::string& name, int64_t version) {
  STRATA_CHECK(version >= 0, "Hub::load_model: version ", std::to_string(version), " of \"", name,
               "\", expected a positive number or kLatest");
  std::lock_guard lock(state_->mu);
  return load(*state_, name, version);
}

LoadedModel Hub::load_model(const std::string& name, std::string_view version) {
  return load_model(name, detail::parse_version(version, "Hub::load_model", name));
}

std::optional<ModelInfo> Hub::model_info(const std::string& name, int64_t version) {
  std::lock_guard lock(state_->mu);
  return lookup(*state_, name, version);
}

std::optional<LoadedModel> Hub::find_top_model(const std::string& name, const std::string& metric, Order order,
                                               const ModelFilter& filter) {
  std::lock_guard lock(state_->mu);
  HubState& s = *state_;
  std::optional<LoadedModel> out;
  s.db->transaction(false, [&] {
    const auto pid = s.project_id(false);
    if (!pid) return;
    std::string sql = std::string("SELECT ") + kModelColumns +
                      " FROM models m JOIN model_metrics mm ON mm.model_id = m.id AND mm.name = ?"
                      " WHERE m.project_id = ? AND m.name = ?";
    Params params{metric, *pid, name};
    for (const auto& tag : filter.tags) {
      sql += " AND EXISTS (SELECT 1 FROM model_tags t WHERE t.model_id = m.id AND t.tag = ?)";
      params.push_back(tag);
    }
    for (const auto& [k, v] : filter.values) {
      sql += " AND EXISTS (SELECT 1 FROM model_values v WHERE v.model_id = m.id AND v.key = ? AND v.value = ?)";
      params.push_back(k);
      params.push_back(v);
    }
    sql += order == Order::descending ? " ORDER BY mm.value DESC" : " ORDER BY mm.value ASC";
    sql += ", m.version DESC LIMIT 1";
    std::optional<ModelInfo> info;
    s.db->query(sql, params, [&](const Row& r) { info = read_info(r); });
    if (!info) return;
    out.emplace();
    out->weights = weights_of(s, *info);
    out->info = std::move(*info);
  });
  return out;
}

std::vector<ModelInfo> Hub::list_models(const std::string& name, Page page) {
  STRATA_CHECK(page.limit >= 0 && page.offset >= 0, "Hub::list_models: the page's limit and offset must be >= 0");
  std::lock_guard lock(state_->mu);
  std::vector<ModelInfo> out;
  const auto pid = state_->project_id(false);
  if (!pid) return out;
  std::string sql = std::string("SELECT ") + kModelColumns + " FROM models m WHERE m.project_id = ?";
  Params params{*pid};
  if (!name.empty()) {
    sql += " AND m.name = ?";
    params.push_back(name);
  }
  sql += " ORDER BY m.id DESC LIMIT ? OFFSET ?";
  params.push_back(page.limit);
  params.push_back(page.offset);
  state_->db->query(sql, params, [&](const Row& r) { out.push_back(read_info(r)); });
  return out;
}

int64_t Hub::delete_model(const std::string& name, int64_t version) {
  std::lock_guard lock(state_->mu);
  return detail::delete_versions(*state_, detail::kModels, name, version);
}

int64_t Hub::delete_all_versions(const std::string& name) {
  std::lock_guard lock(state_->mu);
  return detail::delete_versions(*state_, detail::kModels, name, std::nullopt);
}

}  // namespace strata::hub
