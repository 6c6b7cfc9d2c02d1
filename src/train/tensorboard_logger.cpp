#include "strata/train/tensorboard_logger.hpp"

#include <filesystem>

#include "strata/core/error.hpp"
#include "strata/nn/layer.hpp"

namespace strata::train {

TensorBoardLogger::TensorBoardLogger(std::string log_dir, TensorBoardOptions options)
    : log_dir_(std::move(log_dir)), options_(std::move(options)) {
  STRATA_CHECK(options_.every_n_steps >= 0, "TensorBoardLogger: every_n_steps must be >= 0, got ", options_.every_n_steps);
  STRATA_CHECK(options_.histogram_bins >= 1, "TensorBoardLogger: histogram_bins must be >= 1, got ",
               options_.histogram_bins);
}

EventFileWriter& TensorBoardLogger::train_writer() {
  STRATA_CHECK(train_ != nullptr, "TensorBoardLogger: no writer before training begins");
  return *train_;
}

EventFileWriter& TensorBoardLogger::validation_writer() {
  STRATA_CHECK(validation_ != nullptr, "TensorBoardLogger: no writer before training begins");
  return *validation_;
}

void TensorBoardLogger::on_train_begin() {
  const std::filesystem::path dir(log_dir_);
  train_ = std::make_unique<EventFileWriter>((dir / "train").string());
  validation_ = std::make_unique<EventFileWriter>((dir / "validation").string());
  // Indented four spaces: TensorBoard renders text as Markdown, and the table needs a code block.
  std::string text;
  for (char c : "    " + model().summary()) text += c == '\n' ? std::string("\n    ") : std::string(1, c);
  train_->add_text("model", 0, text);
}

void TensorBoardLogger::on_batch_end(int64_t, const Logs& logs) {
  const int64_t step = state().global_step;  // fit() counts this batch already
  if (options_.every_n_steps == 0 || step % options_.every_n_steps != 0) return;
  for (const auto& [key, v] : logs)
    if (key != "lr") train_->add_scalar("batch_" + key, step, v);
}

void TensorBoardLogger::on_epoch_end(int64_t epoch, Logs& logs) {
  for (const auto& [key, v] : logs) {
    if (key.starts_with("val_"))
      validation_->add_scalar("epoch_" + key.substr(4), epoch, v);
    else
      train_->add_scalar("epoch_" + key, epoch, v);
  }
  if (options_.histograms)
    for (const auto& [name, w] : model().named_weights())
      if (w.numel() > 0) train_->add_histogram(name, epoch, w, options_.histogram_bins);
  if (options_.images) train_->add_image("samples", epoch, options_.images());
}

}  // namespace strata::train
