// A CSV file with a header row (data::read_csv), read with a label column named "label", as the
// seeds have, and without one; then every example of its dataset.
#include "fuzz_input.hpp"
#include "strata/data/csv.hpp"

namespace {

void read_table(const std::string& path, const strata::data::CsvOptions& options) {
  strata::fuzz::read_or_refuse([&] {
    const strata::data::CsvTable table = strata::data::read_csv(path, options);
    const strata::data::Dataset examples = table.dataset();
    for (int64_t i = 0; i < examples.size(); ++i)
      for (const auto& tensor : examples.get(i)) strata::fuzz::use_every_byte(tensor);
  });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string& path = strata::fuzz::input_file(data, size, ".csv");
  read_table(path, {.label_column = "label"});
  read_table(path, {});
  return 0;
}
