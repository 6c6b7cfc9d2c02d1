#include "strata/data/cifar.hpp"

#include <cstring>
#include <filesystem>

#include "file_bytes.hpp"
#include "strata/ops/combine.hpp"

namespace strata::data {

namespace {

constexpr int64_t kSide = 32, kPixels = kSide * kSide, kImageBytes = 3 * kPixels;

// label_bytes: 1 (CIFAR-10: the label) or 2 (CIFAR-100: coarse, then fine).
CifarBatch read_batch(const std::string& path, int label_bytes, int classes, const char* what) {
  const std::vector<unsigned char> bytes = detail::read_file_bytes(path, what);
  const int64_t record = label_bytes + kImageBytes;
  const int64_t size = static_cast<int64_t>(bytes.size());
  STRATA_CHECK(size > 0 && size % record == 0, what, ": ", path, ": ", size, " bytes is not a whole number of ",
               record, "-byte records (", label_bytes, " label byte(s) + 3072 pixels); truncated or not a ",
               label_bytes == 1 ? "CIFAR-10" : "CIFAR-100", " binary batch?");
  const int64_t n = size / record;
  CifarBatch out;
  out.images = Tensor::empty({n, kSide, kSide, 3}, kUInt8);
  out.labels = Tensor::empty({n}, kUInt8);
  if (label_bytes == 2) out.coarse_labels = Tensor::empty({n}, kUInt8);
  uint8_t* images = out.images.data<uint8_t>();
  uint8_t* labels = out.labels.data<uint8_t>();
  for (int64_t i = 0; i < n; ++i) {
    const unsigned char* r = bytes.data() + i * record;
    const int label = r[label_bytes - 1];
    STRATA_CHECK(label < classes, what, ": ", path, ": record ", i, " has label ", label, ", expected 0..",
                 classes - 1);
    labels[i] = static_cast<uint8_t>(label);
    if (label_bytes == 2) {
      STRATA_CHECK(r[0] < 20, what, ": ", path, ": record ", i, " has coarse label ", static_cast<int>(r[0]),
                   ", expected 0..19");
      out.coarse_labels.data<uint8_t>()[i] = r[0];
    }
    // Planes (CHW) to interleaved (HWC).
    const unsigned char* planes = r + label_bytes;
    uint8_t* image = images + i * kImageBytes;
    for (int64_t p = 0; p < kPixels; ++p)
      for (int64_t c = 0; c < 3; ++c) image[p * 3 + c] = planes[c * kPixels + p];
  }
  return out;
}

}  // namespace

CifarBatch read_cifar10(const std::string& path) { return read_batch(path, 1, 10, "read_cifar10"); }
CifarBatch read_cifar100(const std::string& path) { return read_batch(path, 2, 100, "read_cifar100"); }

Cifar10 load_cifar10(const std::string& dir) {
  std::vector<Tensor> images, labels;
  for (int b = 1; b <= 5; ++b) {
    CifarBatch batch = read_cifar10((std::filesystem::path(dir) / ("data_batch_" + std::to_string(b) + ".bin")).string());
    images.push_back(batch.images);
    labels.push_back(batch.labels);
  }
  Cifar10 out;
  out.train.images = concat(images, 0);
  out.train.labels = concat(labels, 0);
  out.test = read_cifar10((std::filesystem::path(dir) / "test_batch.bin").string());
  return out;
}

}  // namespace strata::data
