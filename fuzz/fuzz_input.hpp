// What the fuzz targets share: the input as a file, for readers that take a path, and the one
// rule every reader must keep. fuzz_input.cpp also lowers Strata's limits for the fuzzer.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "strata/core/error.hpp"
#include "strata/core/tensor.hpp"

namespace strata::fuzz {

// Writes the input to this process's scratch file, whose name ends in `suffix`, and returns its
// path. One file per process, rewritten for each input and removed at exit.
const std::string& input_file(const uint8_t* data, size_t size, const std::string& suffix);

// Reads every byte a tensor's shape and dtype claim, as a later user of it would (printing it,
// saving it to the hub): a tensor whose storage is smaller than its shape says shows as an ASan
// report here, in the reader's fuzzer, not later in someone else's process.
void use_every_byte(const Tensor& tensor);

// Runs `read`. Reading and refusing with strata::Error are both correct; anything else (another
// exception, a crash, a sanitizer report, a hang) escapes to libFuzzer, which reports the input.
template <class Read>
void read_or_refuse(Read&& read) {
  try {
    read();
  } catch (const strata::Error&) {
  }
}

}  // namespace strata::fuzz
