// Limits on what Strata accepts from outside: files, database rows, requests, task params, plans.
// Every byte from outside is hostile, so each size a reader takes from its input is checked
// against one of these before anything is allocated or walked. A refusal is a LimitError whose
// message names the limit, its value, what was asked for and where it came from.
//
// The defaults suit real models and data on one machine. Each can be overridden for the whole
// process, in code (`strata::limits().max_tensor_bytes = ...`, before the readers run) or by the
// environment variable named beside it, read once at first use. docs/reliability.md lists them.
#pragma once
#include <cstdint>
#include <string_view>

#include "strata/core/error.hpp"

namespace strata {

// A request that exceeds one of the documented limits below.
class LimitError : public Error {
 public:
  using Error::Error;
};

struct Limits {
  // Bytes of one tensor read from a file or made from a config read from one
  // (safetensors, .npy/.npz, .h5, whole-model files, IDX, CIFAR, CSV). STRATA_MAX_TENSOR_BYTES.
  std::uint64_t max_tensor_bytes = std::uint64_t{8} << 30;
  // Width x height of one decoded image (PNG, JPEG). 2^28 is 16384 x 16384. STRATA_MAX_IMAGE_PIXELS.
  std::uint64_t max_image_pixels = std::uint64_t{1} << 28;
  // Nesting of JSON from outside (model configs, plans, task params, database rows).
  // STRATA_MAX_JSON_DEPTH.
  std::uint64_t max_json_depth = 256;
  // Nesting of the pickles inside .npz files (tuples and lists; NumPy's own nest a few levels).
  // STRATA_MAX_PICKLE_DEPTH.
  std::uint64_t max_pickle_depth = 256;
  // Tasks or trials one plan, search or cross-validation may expand to. STRATA_MAX_PLAN_TASKS.
  std::uint64_t max_plan_tasks = 1'000'000;
};

// The process-wide limits, read from the environment on first use.
Limits& limits();

// Throws LimitError "<what>: <quantity> <value> exceeds the limit <limit_name> = <limit> (set
// <env> to raise it)" when value > limit. `limit_name` is the Limits field's name.
void check_limit(std::string_view what, std::string_view quantity, std::uint64_t value,
                 std::string_view limit_name, std::uint64_t limit);

// Throws LimitError when the JSON text nests arrays/objects deeper than limits().max_json_depth.
// A linear scan that skips strings; run it before handing outside JSON to a (recursive) parser.
void check_json_depth(std::string_view json_text, std::string_view what);

}  // namespace strata
