// TensorBoardLogger: writes training to TensorBoard event files, laid out as Keras's
// TensorBoard callback does: LOG_DIR/train and LOG_DIR/validation, so `tensorboard --logdir
// LOG_DIR` overlays the two. Per batch (every n steps): "batch_<key>" in train at step = batches
// trained so far. Per epoch (step = epoch, from 0): "epoch_<key>" in train, and the "val_" keys,
// as "epoch_<key>" without the prefix, in validation; a histogram of every weight (its
// TensorLayer name, "dense_1/W"); the image `images` returns, if set. At the start: the model's
// summary as text "model".
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "strata/train/callback.hpp"
#include "strata/train/event_file_writer.hpp"

namespace strata::train {

struct TensorBoardOptions {
  int64_t every_n_steps = 1;   // batch scalars; 0: epochs only
  bool histograms = true;      // weight histograms each epoch
  int64_t histogram_bins = 30;
  // Called at each epoch's end; its image (add_image's forms, e.g. image_grid of GAN samples)
  // is logged as "samples". Empty: no images.
  std::function<Tensor()> images;
};

class TensorBoardLogger : public Callback {
 public:
  explicit TensorBoardLogger(std::string log_dir, TensorBoardOptions options = {});

  // The writers of LOG_DIR/train and LOG_DIR/validation, for logging more (made at on_train_begin).
  EventFileWriter& train_writer();
  EventFileWriter& validation_writer();

  void on_train_begin() override;
  void on_batch_end(int64_t step, const Logs& logs) override;
  void on_epoch_end(int64_t epoch, Logs& logs) override;

 private:
  std::string log_dir_;
  TensorBoardOptions options_;
  std::unique_ptr<EventFileWriter> train_, validation_;
};

}  // namespace strata::train
