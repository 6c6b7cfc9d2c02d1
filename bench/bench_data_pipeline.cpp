// bench_data_pipeline: images per second through a training-style augmentation pipeline
// (decode PNG or JPEG from an image folder, random crop, random flip, normalise, batch 128) with
// 1 and 2 map threads, and the Fashion-MNIST IDX loader's load time. The bench writes its own
// image folders (2,000 32x32 RGB images in 10 classes) under the temp directory. No libtorch.
#include <omp.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <random>
#include <string>

#include "strata/data/data.hpp"
#include "strata/ops/elementwise.hpp"
#include "strata/vision/image.hpp"

using namespace strata;
using namespace strata::data;
namespace fs = std::filesystem;

namespace {

constexpr int kImages = 2000, kClasses = 10, kSide = 32, kCrop = 28, kBatch = 128;

double seconds_of(const auto& fn) {
  const auto start = std::chrono::steady_clock::now();
  fn();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Smooth colour gradients plus noise: compresses like a small photo, not like flat colour.
Tensor synthetic_image(int k, Generator& gen) {
  Tensor noise = uniform({kSide, kSide, 3}, 0, 48, kFloat32, &gen);
  std::vector<float> v = noise.to_vector<float>();
  for (int y = 0; y < kSide; ++y)
    for (int x = 0; x < kSide; ++x)
      for (int c = 0; c < 3; ++c) v[(y * kSide + x) * 3 + c] += static_cast<float>((x * (c + 1) + y * (k % 7) + 20 * c) % 200);
  return cast(from_vector<float>(v).reshape({kSide, kSide, 3}), kUInt8);
}

void write_folder(const fs::path& root, const std::string& extension) {
  Generator gen(7);
  for (int k = 0; k < kImages; ++k) {
    const fs::path dir = root / ("class" + std::to_string(k % kClasses));
    fs::create_directories(dir);
    write_image((dir / ("img" + std::to_string(k) + extension)).string(), synthetic_image(k, gen), 90);
  }
}

// Random 28x28 crop, left-right flip with probability 1/2, per-image normalisation to float32.
// Each OpenMP thread draws from its own generator (a Generator is not thread-safe).
Example augment(const Example& ex) {
  thread_local Generator gen(1000 + omp_get_thread_num());
  Tensor image = vision::random_crop(ex[0], kCrop, kCrop, gen);
  if (std::bernoulli_distribution(0.5)(gen.engine())) image = vision::flip_left_right(image);
  return {vision::samplewise_normalize(image), ex[1]};
}

// One pass over the folder in batches of 128; returns images per second.
double pipeline_images_per_second(const fs::path& root, int threads) {
  Dataset batches = image_folder(root.string(), {.channels = 3}).dataset().shuffle(1).map(augment, threads).batch(kBatch);
  int64_t images = 0;
  const double s = seconds_of([&] {
    for (const Example& batch : batches) images += batch[0].size(0);
  });
  return images / s;
}

}  // namespace

int main() {
  const fs::path root = fs::temp_directory_path() / ("strata_bench_data_pipeline_" + std::to_string(::getpid()));
  fs::remove_all(root);
  for (const std::string ext : {".png", ".jpg"}) {
    const fs::path folder = root / ext.substr(1);
    std::printf("writing %d %dx%dx3 %s images: %.2f s\n", kImages, kSide, kSide, ext.c_str(),
                seconds_of([&] { write_folder(folder, ext); }));
    for (int threads : {1, 2})
      std::printf("  decode %s + crop %d + flip + normalise + batch %d, %d thread(s): %.0f images/s\n", ext.c_str(),
                  kCrop, kBatch, threads, pipeline_images_per_second(folder, threads));
  }
  fs::remove_all(root);
  for (int pass = 1; pass <= 2; ++pass) {
    FashionMnist fm;
    const double s = seconds_of([&] { fm = load_fashion_mnist(); });
    std::printf("load_fashion_mnist (Debian, gzip IDX, %lld + %lld images), pass %d: %.3f s\n",
                static_cast<long long>(fm.train_images.size(0)), static_cast<long long>(fm.test_images.size(0)), pass, s);
  }
}
