// A plan file, as `strata plan submit` reads it (workflow::parse_plan_file): tasks, a search or a
// cross-validation, expanded into the plan's tasks.
#include <string>

#include "fuzz_input.hpp"
#include "strata/workflow/plan_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  strata::fuzz::read_or_refuse(
      [&] { strata::workflow::parse_plan_file(std::string(reinterpret_cast<const char*>(data), size)); });
  return 0;
}
