#include "strata/train/event_file_writer.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <string_view>

#include "data/image_tiles.hpp"
#include "proto_message.hpp"
#include "strata/core/error.hpp"
#include "strata/core/factory.hpp"
#include "strata/core/utf8.hpp"
#include "strata/data/image_codec.hpp"
#include "tfrecord.hpp"

namespace strata::train {
namespace {

using detail::ProtoMessage;

// Field numbers of tensorflow/core/util/event.proto and framework/summary.proto.
namespace event {
constexpr int wall_time = 1, step = 2, file_version = 3, summary = 5;
}
namespace value {
constexpr int tag = 1, simple_value = 2, image = 4, histo = 5, tensor = 8, metadata = 9;
}

double now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::string event_file_name() {
  static std::atomic<int> counter{0};
  char host[256] = "localhost";
  ::gethostname(host, sizeof host - 1);
  host[sizeof host - 1] = '\0';
  return "events.out.tfevents." + std::to_string(static_cast<int64_t>(now())) + "." + host + "." +
         std::to_string(::getpid()) + "." + std::to_string(counter++) + ".strata";
}

std::string summary_event(int64_t step, std::optional<double> wall_time, const ProtoMessage& summary_value) {
  ProtoMessage summary;
  summary.message(1, summary_value);
  ProtoMessage e;
  e.float64(event::wall_time, wall_time.value_or(now())).varint(event::step, static_cast<uint64_t>(step));
  e.message(event::summary, summary);
  return e.str();
}

// uint8 [H, W, C] from what add_image accepts.
Tensor image_bytes(const Tensor& image, const char* who) {
  const Shape& s = image.shape();
  STRATA_CHECK(s.size() == 2 || s.size() == 3, who, ": expected an image [H, W] or [H, W, C], got shape ", s.str());
  const Shape hwc = s.size() == 2 ? Shape{s[0], s[1], 1} : s;
  STRATA_CHECK(hwc[2] >= 1 && hwc[2] <= 4, who, ": expected 1 to 4 channels, got ", hwc[2]);
  if (image.dtype() == kUInt8) return from_vector(image.to_vector<uint8_t>(), hwc);
  STRATA_CHECK(is_floating(image.dtype()), who, ": expected a uint8 or float image, got ", dtype_name(image.dtype()));
  std::vector<uint8_t> bytes;
  bytes.reserve(image.numel());
  for (double v : image.to_vector<double>())
    bytes.push_back(static_cast<uint8_t>(std::isnan(v) ? 0 : std::clamp(std::round(v * 255), 0.0, 255.0)));
  return from_vector(bytes, hwc);
}

}  // namespace

EventFileWriter::EventFileWriter(const std::string& log_dir) {
  std::error_code ec;
  std::filesystem::create_directories(log_dir, ec);
  STRATA_CHECK(!ec, "EventFileWriter: cannot create the log directory '", log_dir, "': ", ec.message());
  path_ = (std::filesystem::path(log_dir) / event_file_name()).string();
  file_.open(path_, std::ios::binary | std::ios::trunc);
  STRATA_CHECK(file_.good(), "EventFileWriter: cannot open '", path_, "' for writing");
  ProtoMessage first;
  first.float64(event::wall_time, now()).bytes(event::file_version, "brain.Event:2");
  write_event(first.str());
}

void EventFileWriter::write_event(const std::string& event) {
  detail::write_tfrecord(file_, event);
  file_.flush();  // TensorBoard reads the file while training runs
  STRATA_CHECK(file_.good(), "EventFileWriter: writing '", path_, "' failed");
}

void EventFileWriter::add_scalar(const std::string& tag, int64_t step, double v, std::optional<double> wall_time) {
  ProtoMessage val;
  // TensorBoard's protobuf parser refuses a string that is not UTF-8, and with it the rest of the
  // file: a hostile metric name from the hub must not cost the whole log.
  val.bytes(value::tag, valid_utf8(tag)).float32(value::simple_value, static_cast<float>(v));
  write_event(summary_event(step, wall_time, val));
}

void EventFileWriter::add_histogram(const std::string& tag, int64_t step, const Tensor& values, int64_t bins,
                                    std::optional<double> wall_time) {
  STRATA_CHECK(bins >= 1, "add_histogram '", tag, "': bins must be at least 1, got ", bins);
  STRATA_CHECK(values.numel() > 0, "add_histogram '", tag, "': the tensor is empty");
  const std::vector<double> v = values.to_vector<double>();
  double sum = 0, sum_squares = 0;
  for (double x : v) {
    STRATA_CHECK(std::isfinite(x), "add_histogram '", tag, "': values must be finite, got ", x);
    sum += x;
    sum_squares += x * x;
  }
  const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  // Right limits of equal-width buckets; one bucket when every value is the same.
  const int64_t n = *hi > *lo ? bins : 1;
  std::vector<double> limits(n), counts(n, 0.0);
  for (int64_t i = 0; i < n; ++i) limits[i] = *lo + (*hi - *lo) * static_cast<double>(i + 1) / static_cast<double>(n);
  limits.back() = *hi;
  for (double x : v) {
    const auto b = std::upper_bound(limits.begin(), limits.end(), x) - limits.begin();
    counts[std::min<int64_t>(b, n - 1)] += 1;
  }
  ProtoMessage h;  // HistogramProto
  h.float64(1, *lo).float64(2, *hi).float64(3, static_cast<double>(v.size())).float64(4, sum).float64(5, sum_squares);
  h.packed_float64(6, limits).packed_float64(7, counts);
  ProtoMessage val;
  val.bytes(value::tag, valid_utf8(tag)).message(value::histo, h);
  write_event(summary_event(step, wall_time, val));
}

void EventFileWriter::add_image(const std::string& tag, int64_t step, const Tensor& image,
                                std::optional<double> wall_time) {
  const Tensor hwc = image_bytes(image, "add_image");
  const auto png = data::encode_png(hwc);
  ProtoMessage img;  // Summary.Image: height, width, colorspace (= channels), encoded bytes
  img.varint(1, hwc.shape()[0]).varint(2, hwc.shape()[1]).varint(3, hwc.shape()[2]);
  img.bytes(4, std::string_view(reinterpret_cast<const char*>(png.data()), png.size()));
  ProtoMessage val;
  val.bytes(value::tag, valid_utf8(tag)).message(value::image, img);
  write_event(summary_event(step, wall_time, val));
}

void EventFileWriter::add_text(const std::string& tag, int64_t step, const std::string& text,
                               std::optional<double> wall_time) {
  // The text plugin's form: a scalar DT_STRING tensor, marked with plugin_name "text".
  ProtoMessage plugin, metadata, shape, tensor;
  plugin.bytes(1, "text");
  metadata.message(1, plugin);
  tensor.varint(1, 7).message(2, shape).bytes(8, valid_utf8(text));  // dtype DT_STRING, shape [], string_val
  ProtoMessage val;
  val.bytes(value::tag, valid_utf8(tag)).message(value::metadata, metadata).message(value::tensor, tensor);
  write_event(summary_event(step, wall_time, val));
}

Tensor image_grid(const Tensor& images, int64_t columns) {
  const Shape& s = images.shape();
  STRATA_CHECK(s.size() == 4 && s[0] >= 1, "image_grid: expected images [N, H, W, C] with N >= 1, got shape ", s.str());
  const int64_t n = s[0], h = s[1], w = s[2], c = s[3];
  const Tensor first = image_bytes(images.reshape({n * h, w, c}), "image_grid");  // checks dtype and channels
  // 2 pixels of zeros between tiles; `columns` past N is N (one row).
  return data::detail::tile_images(first.to_vector<uint8_t>(), s, 0, columns <= 0 ? 0 : std::min(columns, n), 2);
}

}  // namespace strata::train
