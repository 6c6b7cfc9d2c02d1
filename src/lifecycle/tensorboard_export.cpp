#include "strata/lifecycle/tensorboard_export.hpp"

#include <filesystem>
#include <map>
#include <memory>

#include "strata/core/error.hpp"
#include "strata/train/event_file_writer.hpp"

namespace strata::lifecycle {

namespace {

namespace fs = std::filesystem;
using train::EventFileWriter;

// TensorBoard reads every event file of a folder: a second export of a run beside the first
// would show each point twice.
void refuse_earlier_event_files(const std::string& out_dir) {
  for (const hub::Split split : hub::kSplits) {
    const fs::path dir = fs::path(out_dir) / hub::split_name(split);
    std::error_code ec;
    for (auto it = fs::directory_iterator(dir, ec); !ec && it != fs::directory_iterator(); it.increment(ec))
      STRATA_CHECK(!it->path().filename().string().starts_with("events.out.tfevents."), "export_tensorboard: '",
                   dir.string(),
                   "' already holds event files (an earlier export?), which TensorBoard would show "
                   "beside these: remove them or export to another folder");
  }
}

TensorBoardExport write_events(hub::Hub& hub, int64_t run_id, const hub::RunInfo& run,
                               std::map<hub::Split, std::unique_ptr<EventFileWriter>>& writers,
                               const std::string& out_dir) {
  auto writer = [&](hub::Split split) -> EventFileWriter& {
    auto& w = writers[split];
    if (!w) w = std::make_unique<EventFileWriter>((fs::path(out_dir) / hub::split_name(split)).string());
    return *w;
  };
  EventFileWriter& train = writer(hub::Split::train);
  train.add_text("config", 0, run.config, run.created_at);
  TensorBoardExport done;
  for (const auto& [name, split] : hub.metric_series(run_id)) {
    EventFileWriter& w = writer(split);
    for (const auto& p : hub.metric_history(run_id, name, split)) {
      w.add_scalar(name, p.step, p.value, p.time);
      ++done.points;
    }
    ++done.series;
  }
  constexpr int64_t kPage = 1000;
  for (int64_t offset = 0;; offset += kPage) {
    const auto events = hub.events(run_id, {.limit = kPage, .offset = offset});
    for (size_t i = 0; i < events.size(); ++i)
      train.add_text("events/" + events[i].kind, offset + static_cast<int64_t>(i), events[i].payload, events[i].time);
    if (static_cast<int64_t>(events.size()) < kPage) break;
  }
  return done;
}

}  // namespace

TensorBoardExport export_tensorboard(hub::Hub& hub, int64_t run_id, const std::string& out_dir) {
  const auto run = hub.run_info(run_id);
  STRATA_CHECK(run.has_value(), "export_tensorboard: no run ", run_id, " in hub ", hub.url());
  refuse_earlier_event_files(out_dir);
  std::map<hub::Split, std::unique_ptr<EventFileWriter>> writers;
  try {
    return write_events(hub, run_id, *run, writers, out_dir);
  } catch (...) {
    // A run that cannot be read to its end (a row the hub refuses) leaves no part of itself.
    for (auto& [split, writer] : writers) {
      const std::string file = writer->path();
      writer.reset();
      std::error_code ec;
      fs::remove(file, ec);
    }
    throw;
  }
}

}  // namespace strata::lifecycle
