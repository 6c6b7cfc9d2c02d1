#include "versions.hpp"

#include <set>
#include <vector>

#include "blob_store.hpp"

namespace strata::hub::detail {

std::string describe(const VersionedTable& t, const std::string& name, int64_t version) {
  return std::string(t.noun) + " \"" + name + "\" version " +
         (version == kLatest ? std::string("latest") : std::to_string(version));
}

int64_t allocate_version(Database& db, const VersionedTable& t, int64_t project_id, const std::string& name) {
  const std::string names = t.names_table;
  return *db.query_int("INSERT INTO " + names + " (project_id, name, last_version) VALUES (?, ?, 1) "
                       "ON CONFLICT (project_id, name) DO UPDATE SET last_version = " + names + ".last_version + 1 "
                       "RETURNING last_version",
                       {project_id, name});
}

int64_t parse_version(std::string_view text, const char* function, const std::string& name) {
  if (text == "latest") return kLatest;
  int64_t v = 0;
  for (char c : text) {
    STRATA_CHECK(c >= '0' && c <= '9' && v < (int64_t{1} << 58), function, ": version \"", std::string(text), "\" of \"",
                 name, "\", expected a number or \"latest\"");
    v = v * 10 + (c - '0');
  }
  STRATA_CHECK(!text.empty() && v > 0, function, ": version \"", std::string(text), "\" of \"", name,
               "\", expected a positive number or \"latest\"");
  return v;
}

int64_t delete_versions(HubState& s, const VersionedTable& t, const std::string& name,
                        const std::optional<int64_t>& version, const char* also) {
  int64_t deleted = 0;
  std::vector<std::string> released, files;
  s.db->transaction(true, [&] {
    deleted = 0;
    released.clear();
    files.clear();
    const auto pid = s.project_id(false);
    if (!pid) return;
    std::vector<std::pair<int64_t, std::string>> rows;
    std::string sql = std::string("SELECT id, blob_sha256 FROM ") + t.table + " WHERE project_id = ? AND name = ?";
    Params params{*pid, name};
    if (version && *version == kLatest) sql += " ORDER BY version DESC LIMIT 1";
    else if (version) {
      sql += " AND version = ?";
      params.push_back(*version);
    }
    s.db->query(sql, params, [&](const Row& r) { rows.emplace_back(r.integer(0), r.text(1)); });
    std::set<std::string> blobs;
    for (const auto& [id, sha] : rows) {
      if (also) s.db->execute(also, {id});
      s.db->execute(std::string("DELETE FROM ") + t.table + " WHERE id = ?", {id});
      blobs.insert(sha);
    }
    for (const auto& sha : blobs)
      if (release_blob(s, sha, files)) released.push_back(sha);
    deleted = static_cast<int64_t>(rows.size());
  });
  for (const auto& sha : released) s.cache.erase(sha);
  if (const BlobFiles* blob_files = s.files())
    for (const auto& f : files) blob_files->remove(f);  // only now: the rows' deletion committed
  return deleted;
}

}  // namespace strata::hub::detail
