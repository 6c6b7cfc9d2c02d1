// bench_hdf5_load: what reading an HDF5 weight file in a process of its own costs
// (io::load_hdf5_weights forks a reader for libhdf5, docs/interop.md). fork copies the caller's
// page tables and marks its pages copy-on-write, so both costs grow with the memory the caller
// holds: one load of a small Keras-layout file (the mean of 100) while this process holds 0, 1
// and 4 GiB of tensors, and the first write to every page of those tensors after a load against
// the same write without one. No libtorch.
#include <cstdio>
#include <filesystem>
#include <vector>

#include "milliseconds.hpp"
#include "strata/core/factory.hpp"
#include "strata/io/hdf5.hpp"

using namespace strata;

namespace {

// Writes one byte in every 4 KiB page of the tensors.
void write_every_page(std::vector<Tensor>& tensors) {
  for (Tensor& t : tensors) {
    auto* bytes = static_cast<volatile char*>(t.raw_data());
    for (size_t i = 0; i < t.nbytes(); i += 4096) bytes[i] = 1;
  }
}

}  // namespace

int main() {
  const auto path = (std::filesystem::temp_directory_path() / "strata_bench_hdf5_load.h5").string();
  io::save_hdf5_weights(path, {{"dense", {{"dense/W", ones({784, 100})}, {"dense/b", zeros({100})}}},
                               {"out", {{"out/W", ones({100, 10})}, {"out/b", zeros({10})}}}});
  std::vector<Tensor> held;
  for (const int gib : {0, 1, 4}) {
    while (static_cast<int>(held.size()) < gib * 4) held.push_back(ones({64, 1024, 1024}));  // 256 MiB each, written
    const double load = milliseconds([&] {
      for (int i = 0; i < 100; ++i) io::load_hdf5_weights(path);
    }) / 100;
    std::printf("holding %d GiB of tensors: %.2f ms a load", gib, load);
    if (gib > 0) {
      const double after_load = milliseconds([&] { write_every_page(held); });
      const double again = milliseconds([&] { write_every_page(held); });
      std::printf("; then writing every page of them: %.0f ms (%.0f ms without a load before)", after_load, again);
    }
    std::printf("\n");
  }
  std::filesystem::remove(path);
}
