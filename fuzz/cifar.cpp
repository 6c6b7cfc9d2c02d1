// A CIFAR binary batch, read as CIFAR-10 (1 label byte per record) and CIFAR-100 (2).
#include "fuzz_input.hpp"
#include "strata/data/cifar.hpp"

namespace {

void use_batch(const strata::data::CifarBatch& batch) {
  strata::fuzz::use_every_byte(batch.images);
  strata::fuzz::use_every_byte(batch.labels);
  strata::fuzz::use_every_byte(batch.coarse_labels);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string& path = strata::fuzz::input_file(data, size, ".bin");
  strata::fuzz::read_or_refuse([&] { use_batch(strata::data::read_cifar10(path)); });
  strata::fuzz::read_or_refuse([&] { use_batch(strata::data::read_cifar100(path)); });
  return 0;
}
