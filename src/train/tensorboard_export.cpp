#include "strata/train/tensorboard_export.hpp"

#include <filesystem>
#include <map>
#include <memory>

#include "strata/core/error.hpp"
#include "strata/train/event_file_writer.hpp"

namespace strata::train {

TensorBoardExport export_tensorboard(hub::Hub& hub, int64_t run_id, const std::string& out_dir) {
  const auto run = hub.run_info(run_id);
  STRATA_CHECK(run.has_value(), "export_tensorboard: no run ", run_id, " in hub ", hub.url());
  std::map<hub::Split, std::unique_ptr<EventFileWriter>> writers;
  auto writer = [&](hub::Split split) -> EventFileWriter& {
    auto& w = writers[split];
    if (!w) w = std::make_unique<EventFileWriter>((std::filesystem::path(out_dir) / hub::split_name(split)).string());
    return *w;
  };
  EventFileWriter& train = writer(hub::Split::train);
  train.add_text("config", 0, run->config, run->created_at);
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

}  // namespace strata::train
