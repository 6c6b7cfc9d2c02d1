// IMDB's imdb.pkl reader (data/imdb.hpp, parse_reviews_pickle): a pickle of (lists of ints,
// ints), protocols 0-5; every other opcode refused. Seeds: the fixture's protocol-2 and
// protocol-0 files (tests/data/tl_fixtures).
#include <string_view>

#include "fuzz_input.hpp"
#include "strata/data/imdb.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  strata::fuzz::read_or_refuse([&] {
    const auto reviews =
        strata::data::parse_reviews_pickle(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.pkl");
    volatile int64_t sum = 0;  // every value read, as a loader would
    for (const auto& s : reviews.sequences)
      for (int64_t w : s) sum = sum + w;
  });
  return 0;
}
