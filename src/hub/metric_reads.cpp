// Reading a run's metric series back: listed, whole, or sampled for a chart. Every query walks
// the metrics_by_run index (run_id, name, split, step), seeking rather than scanning where a
// run may hold millions of points: the dashboard asks again every few seconds while a run trains.
#include <algorithm>
#include <cstdint>

#include "hub_state.hpp"
#include "strata/hub/hub.hpp"

namespace strata::hub {

using detail::Row;

namespace {

constexpr const char* kSeries = "run_id = ? AND name = ? AND split = ?";

MetricPoint read_point(const Row& r) { return {r.integer(0), r.real(1), r.real(2)}; }  // step, value, time

std::vector<MetricPoint> history(detail::Database& db, int64_t run_id, const std::string& name, Split split) {
  std::vector<MetricPoint> out;
  db.query(std::string("SELECT step, value, time FROM metrics WHERE ") + kSeries + " ORDER BY step, time",
           {run_id, name, split_name(split)}, [&](const Row& r) { out.push_back(read_point(r)); });
  return out;
}

}  // namespace

std::vector<MetricPoint> Hub::metric_history(int64_t run_id, const std::string& name, Split split) {
  std::lock_guard lock(state_->mu);
  return history(*state_->db, run_id, name, split);
}

MetricSample Hub::metric_sample(int64_t run_id, const std::string& name, Split split, int64_t max_points) {
  if (max_points < 2) throw Error("hub: metric_sample needs room for 2 points or more, got " + std::to_string(max_points));
  std::lock_guard lock(state_->mu);
  auto& db = *state_->db;
  const std::string series = kSeries;
  const std::string split_text = split_name(split);
  const auto counted = db.query_int("SELECT COUNT(*) FROM (SELECT 1 FROM metrics WHERE " + series + " LIMIT ?) AS head",
                                    {run_id, name, split_text, max_points + 1});
  if (counted.value_or(0) <= max_points) return {history(db, run_id, name, split), false};

  // Two queries: SQLite reads MIN or MAX alone from the index's end, both together by a scan.
  const auto lowest = db.query_int("SELECT MIN(step) FROM metrics WHERE " + series, {run_id, name, split_text});
  const auto highest = db.query_int("SELECT MAX(step) FROM metrics WHERE " + series, {run_id, name, split_text});
  if (!lowest || !highest) return {};  // deleted since it was counted, by another connection
  const int64_t first = *lowest, last = *highest;
  // The spacing that fits the steps' span into max_points picks, in unsigned arithmetic: the
  // steps are whatever was logged, INT64_MIN and INT64_MAX included.
  const uint64_t span = static_cast<uint64_t>(last) - static_cast<uint64_t>(first);
  const int64_t spacing = static_cast<int64_t>(std::min<uint64_t>(span / max_points + 1, INT64_MAX));
  // Picks below `below` have another pick within the series; adding the spacing to any other
  // could overflow. spacing <= span + 1, so this lies in [first, last].
  const auto below = static_cast<int64_t>(static_cast<__int128>(last) - spacing + 1);
  // Each pick is sought from the one before (an index lookup each); the picks and the last step
  // are then joined back for their points. A step logged more than once gives each of its
  // points, up to the LIMIT.
  MetricSample sample{{}, true};
  db.query("WITH RECURSIVE picks(step) AS (SELECT MIN(step) FROM metrics WHERE " + series +
               " UNION ALL SELECT (SELECT MIN(step) FROM metrics WHERE " + series +
               " AND step >= picks.step + ?) FROM picks WHERE picks.step < ?) "
               "SELECT step, value, time FROM metrics WHERE " + series +
               " AND step IN (SELECT step FROM picks UNION SELECT CAST(? AS BIGINT)) ORDER BY step, time LIMIT ?",
           {run_id, name, split_text, run_id, name, split_text, spacing, below, run_id, name, split_text, last,
            2 * max_points + 2},
           [&](const Row& r) { sample.points.push_back(read_point(r)); });
  return sample;
}

std::vector<std::pair<std::string, Split>> Hub::metric_series(int64_t run_id, int64_t limit) {
  std::lock_guard lock(state_->mu);
  std::vector<std::pair<std::string, Split>> out;
  if (limit <= 0) return out;
  // A loose index scan: from each series, seek the next split of its name, else the next name.
  // SELECT DISTINCT would read every point of the run.
  const auto next = [&](std::string_view sql, const detail::Params& params) {
    bool found = false;
    state_->db->query(sql, params, [&](const Row& r) {
      out.emplace_back(r.text(0), parse_split(r.text(1)));
      found = true;
    });
    return found;
  };
  if (!next("SELECT name, split FROM metrics WHERE run_id = ? ORDER BY name, split LIMIT 1", {run_id})) return out;
  while (static_cast<int64_t>(out.size()) < limit) {
    const std::string name = out.back().first, split = split_name(out.back().second);
    if (next("SELECT name, split FROM metrics WHERE run_id = ? AND name = ? AND split > ? ORDER BY split LIMIT 1",
             {run_id, name, split}))
      continue;
    if (!next("SELECT name, split FROM metrics WHERE run_id = ? AND name > ? ORDER BY name, split LIMIT 1", {run_id, name}))
      break;
  }
  return out;
}

}  // namespace strata::hub
