// EventFileWriter: one TensorBoard event file (events.out.tfevents.*) in a log directory, the
// format `tensorboard --logdir` reads: scalars, histograms, images and text, each at a step.
// Written without TensorFlow or protobuf (TFRecord framing with masked CRC32C, the Event and
// Summary messages encoded by hand); each event is flushed, so TensorBoard sees a run as it trains.
#pragma once
#include <cstdint>
#include <fstream>
#include <optional>
#include <string>

#include "strata/core/tensor.hpp"

namespace strata::train {

class EventFileWriter {
 public:
  // Creates `log_dir` (and parents) and a new event file in it; throws strata::Error when it cannot.
  explicit EventFileWriter(const std::string& log_dir);

  const std::string& path() const { return path_; }

  // wall_time: seconds since the Unix epoch; by default now. TensorBoard stores scalars as float32.
  void add_scalar(const std::string& tag, int64_t step, double value, std::optional<double> wall_time = {});
  // A histogram of all of `values` (any real dtype, at least one element, all finite) in `bins`
  // equal-width buckets from the minimum to the maximum; a value on a bucket limit counts in the
  // bucket above it (TensorFlow's rule), the maximum in the last bucket.
  void add_histogram(const std::string& tag, int64_t step, const Tensor& values, int64_t bins = 30,
                     std::optional<double> wall_time = {});
  // An image, PNG-encoded: uint8 [H, W] or [H, W, C] with C in 1..4, or a float tensor of that
  // shape with values in [0, 1] (scaled by 255, rounded, clipped).
  void add_image(const std::string& tag, int64_t step, const Tensor& image, std::optional<double> wall_time = {});
  // Text (Markdown in TensorBoard's text tab). In tags and text, bytes that are not UTF-8 are
  // written as U+FFFD (TensorBoard would refuse the file).
  void add_text(const std::string& tag, int64_t step, const std::string& text, std::optional<double> wall_time = {});

 private:
  void write_event(const std::string& event);
  std::string path_;
  std::ofstream file_;
};

// Tiles a batch of images [N, H, W, C] (NHWC, any dtype add_image takes) into one [H', W', C]
// image, `columns` per row (0: about the square root of N), 2 pixels of zeros between tiles:
// the sample grid a GAN logs each epoch.
Tensor image_grid(const Tensor& images, int64_t columns = 0);

}  // namespace strata::train
