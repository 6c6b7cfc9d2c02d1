// A leased task's params, as a worker reads them (workflow/worker.cpp): parsed, then validated
// against the task kind's declared parameters, one of each type here.
#include <exception>
#include <string>

#include <nlohmann/json.hpp>

#include "fuzz_input.hpp"
#include "strata/workflow/registry.hpp"

namespace {

const strata::workflow::TaskRegistry& registry() {
  using strata::workflow::ParamType;
  static const strata::workflow::TaskRegistry r = [] {
    strata::workflow::TaskRegistry made;
    made.add({.name = "train",
              .params = {{.name = "model", .type = ParamType::string, .required = true},
                         {.name = "epochs", .type = ParamType::integer, .default_value = 1},
                         {.name = "lr", .type = ParamType::number, .default_value = 0.01},
                         {.name = "shuffle", .type = ParamType::boolean},
                         {.name = "layers", .type = ParamType::array},
                         {.name = "optimizer", .type = ParamType::object},
                         {.name = "note", .type = ParamType::any}},
              .fn = [](strata::workflow::TaskContext&) { return nlohmann::json::object(); }});
    return made;
  }();
  return r;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string params(reinterpret_cast<const char*>(data), size);
  // The worker fails a task for good on any std::exception from these two steps (bad params
  // cannot become good on a retry), so any exception is a correct refusal here.
  try {
    registry().validate("train", nlohmann::json::parse(params));
  } catch (const std::exception&) {
  }
  return 0;
}
