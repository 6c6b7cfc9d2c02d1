// Hub's dataset methods: versions of a name in one transaction, their tensors (or files, kept as
// uint8 tensors named by the file) in the content-addressed blob store the models use.
#include <cstring>
#include <set>

#include <nlohmann/json.hpp>

#include "blob_store.hpp"
#include "hub_state.hpp"
#include "staged_writes.hpp"
#include "strata/core/factory.hpp"
#include "strata/hub/hub.hpp"
#include "versions.hpp"

namespace strata::hub {
namespace {

using detail::HubState;
using detail::kDatasets;
using detail::Params;
using detail::Row;

constexpr const char* kDatasetColumns =
    "d.id, d.name, d.version, d.kind, d.description, d.user_values, d.entries, d.blob_sha256, d.blob_size, "
    "d.created_at";

const char* kind_name(DatasetKind k) { return k == DatasetKind::files ? "files" : "tensors"; }

DatasetInfo read_info(const Row& r) {
  DatasetInfo info;
  info.id = r.integer(0);
  info.name = r.text(1);
  info.version = r.integer(2);
  info.kind = r.text(3) == "files" ? DatasetKind::files : DatasetKind::tensors;
  info.meta.description = r.text(4);
  info.meta.values =
      detail::stored_column<std::map<std::string, std::string>>(r.text(5), kDatasets, info.name, info.version,
                                                                "user_values");
  info.entries = r.integer(6);
  info.sha256 = r.text(7);
  info.size_bytes = r.integer(8);
  info.created_at = r.real(9);
  return info;
}

std::optional<DatasetInfo> lookup(HubState& s, const std::string& name, int64_t version) {
  const auto pid = s.project_id(false);
  if (!pid) return std::nullopt;
  std::optional<DatasetInfo> out;
  const std::string sql = std::string("SELECT ") + kDatasetColumns +
                          " FROM datasets d WHERE d.project_id = ? AND d.name = ?" +
                          (version == kLatest ? " ORDER BY d.version DESC LIMIT 1" : " AND d.version = ?");
  Params params{*pid, name};
  if (version != kLatest) params.push_back(version);
  s.db->query(sql, params, [&](const Row& r) { out = read_info(r); });
  return out;
}

}  // namespace

namespace detail {

PreparedDataset prepare_dataset(const std::string& name, const io::NamedTensors& tensors, const DatasetMeta& meta) {
  STRATA_CHECK(!name.empty(), "Hub::save_dataset: the dataset name is empty");
  PreparedDataset d{.name = name, .tensors = tensors, .description = meta.description};
  try {
    d.values_json = nlohmann::json(meta.values).dump();
  } catch (const nlohmann::json::exception&) {
    throw Error("Hub::save_dataset: a value of dataset \"" + name + "\" is not valid UTF-8");
  }
  return d;
}

PreparedDataset prepare_dataset(const std::string& name, const DatasetFiles& files, const DatasetMeta& meta) {
  io::NamedTensors tensors;
  tensors.reserve(files.size());
  std::set<std::string_view> seen;
  for (const auto& f : files) {
    STRATA_CHECK(!f.name.empty(), "Hub::save_dataset: a file of dataset \"", name, "\" has an empty name");
    STRATA_CHECK(seen.insert(f.name).second, "Hub::save_dataset: file \"", f.name, "\" appears twice in dataset \"",
                 name, "\"");
    Tensor t = zeros({static_cast<int64_t>(f.bytes.size())}, kUInt8);
    if (!f.bytes.empty()) std::memcpy(t.raw_data(), f.bytes.data(), f.bytes.size());
    tensors.emplace_back(f.name, std::move(t));
  }
  PreparedDataset d = prepare_dataset(name, tensors, meta);
  d.kind = DatasetKind::files;
  return d;
}

int64_t write_dataset(HubState& s, const PreparedDataset& d) {
  const int64_t pid = *s.project_id(true);
  put_blob(s, *d.blob, d.tensors);
  const int64_t version = allocate_version(*s.db, kDatasets, pid, d.name);
  s.db->execute(
      "INSERT INTO datasets (project_id, name, version, kind, description, user_values, entries, blob_sha256, "
      "blob_size, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
      {pid, d.name, version, kind_name(d.kind), d.description, d.values_json, static_cast<int64_t>(d.tensors.size()),
       d.blob->id.sha256, d.blob->id.size, unix_now()});
  return version;
}

}  // namespace detail

namespace {

int64_t save(HubState& s, const detail::PreparedDataset& dataset) {
  detail::stage_blob(s, *dataset.blob, dataset.tensors);  // before the lock, as save_model does
  std::lock_guard lock(s.mu);
  int64_t version = 0;
  s.db->transaction(true, [&] { version = detail::write_dataset(s, dataset); });
  return version;
}

}  // namespace

int64_t Hub::save_dataset(const std::string& name, const io::NamedTensors& tensors, const DatasetMeta& meta) {
  return save(*state_, detail::prepare_dataset(name, tensors, meta));
}

int64_t Hub::save_dataset(const std::string& name, const DatasetFiles& files, const DatasetMeta& meta) {
  return save(*state_, detail::prepare_dataset(name, files, meta));
}

LoadedDataset Hub::load_dataset(const std::string& name, int64_t version) {
  STRATA_CHECK(version >= 0, "Hub::load_dataset: version ", std::to_string(version), " of \"", name,
               "\", expected a positive number or kLatest");
  std::lock_guard lock(state_->mu);
  HubState& s = *state_;
  LoadedDataset out;
  // One read transaction: a version deleted meanwhile is seen whole or not at all.
  s.db->transaction(false, [&] {
    auto info = lookup(s, name, version);
    STRATA_CHECK(info.has_value(), "hub: no ", detail::describe(kDatasets, name, version), " in project \"",
                 s.options.project, "\"");
    out.tensors = detail::read_blob(s, {info->sha256, info->size_bytes},
                                    detail::describe(kDatasets, name, info->version));
    out.info = std::move(*info);
  });
  if (out.info.kind == DatasetKind::files) {
    for (auto& [file, t] : out.tensors)
      out.files.push_back({file, std::string(static_cast<const char*>(t.raw_data()), t.nbytes())});
    out.tensors.clear();
  }
  return out;
}

LoadedDataset Hub::load_dataset(const std::string& name, std::string_view version) {
  return load_dataset(name, detail::parse_version(version, "Hub::load_dataset", name));
}

std::optional<DatasetInfo> Hub::dataset_info(const std::string& name, int64_t version) {
  std::lock_guard lock(state_->mu);
  return lookup(*state_, name, version);
}

std::vector<DatasetInfo> Hub::find_datasets(const std::string& name_part, Page page) {
  STRATA_CHECK(page.limit >= 0 && page.offset >= 0, "Hub::find_datasets: the page's limit and offset must be >= 0");
  std::lock_guard lock(state_->mu);
  std::vector<DatasetInfo> out;
  const auto pid = state_->project_id(false);
  if (!pid) return out;
  std::string sql = std::string("SELECT ") + kDatasetColumns + " FROM datasets d WHERE d.project_id = ?";
  Params params{*pid};
  if (!name_part.empty()) {
    // Not LIKE: its wildcards would need escaping, and SQLite's ignores case where PostgreSQL's does not.
    sql += state_->db->dialect() == detail::Dialect::postgres ? " AND strpos(d.name, ?) > 0" : " AND instr(d.name, ?) > 0";
    params.push_back(name_part);
  }
  sql += " ORDER BY d.id DESC LIMIT ? OFFSET ?";
  params.push_back(page.limit);
  params.push_back(page.offset);
  state_->db->query(sql, params, [&](const Row& r) { out.push_back(read_info(r)); });
  return out;
}

int64_t Hub::delete_dataset(const std::string& name, int64_t version) {
  std::lock_guard lock(state_->mu);
  return detail::delete_versions(*state_, kDatasets, name, version, "UPDATE models SET dataset_id = NULL WHERE dataset_id = ?");
}

int64_t Hub::delete_all_dataset_versions(const std::string& name) {
  std::lock_guard lock(state_->mu);
  return detail::delete_versions(*state_, kDatasets, name, std::nullopt,
                                 "UPDATE models SET dataset_id = NULL WHERE dataset_id = ?");
}

}  // namespace strata::hub
