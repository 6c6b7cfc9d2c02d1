#include "fuzz_input.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "strata/core/limits.hpp"

namespace strata::fuzz {

namespace {

// A file named after the process, so that fuzzers running side by side do not share one.
struct ScratchFile {
  std::string path;
  ~ScratchFile() { std::remove(path.c_str()); }
};

}  // namespace

const std::string& input_file(const uint8_t* data, size_t size, const std::string& suffix) {
  static const ScratchFile file{
      (std::filesystem::temp_directory_path() / ("strata-fuzz-" + std::to_string(getpid()) + suffix)).string()};
  std::ofstream out(file.path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  if (!out) {
    std::perror(file.path.c_str());
    std::abort();  // a fuzzer that cannot write its input would only ever test an empty file
  }
  return file.path;
}

void use_every_byte(const Tensor& tensor) {
  if (!tensor.defined()) return;
  const Tensor dense = tensor.is_contiguous() ? tensor : tensor.contiguous();
  const auto* bytes = static_cast<const unsigned char*>(dense.raw_data());
  unsigned sum = 0;
  for (size_t i = 0; i < dense.nbytes(); ++i) sum += bytes[i];
  static volatile unsigned sink;  // keeps the loop from being optimised away
  sink = sum;
}

}  // namespace strata::fuzz

// libFuzzer calls this once before the first input. The limits are lowered so that an input
// declaring something big is refused at once rather than read for seconds, and so that whatever
// the limits let through stays under libFuzzer's 2 GB malloc limit (-malloc_limit_mb): an
// allocation above that is reported as a crash, which is how a missing limit shows.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  strata::Limits& l = strata::limits();
  l.max_tensor_bytes = 64 << 20;
  l.max_image_pixels = 4 << 20;
  l.max_plan_tasks = 10'000;
  return 0;
}
