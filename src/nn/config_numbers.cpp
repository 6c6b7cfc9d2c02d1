#include "config_numbers.hpp"

#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "strata/core/error.hpp"

namespace strata::nn::detail {
namespace {

// The largest size a config may give: the product of any two sizes fits in int64.
constexpr int64_t kMaxSize = INT32_MAX;

struct SizeField {
  std::string_view name;
  int64_t min, max;
};

// Each entry is an integer or a list of integers wherever it appears in a config.
constexpr SizeField kSizeFields[] = {
    {"units", 1, kMaxSize},           {"n_filter", 1, kMaxSize},         {"filter_size", 1, kMaxSize},
    {"kernel", 1, kMaxSize},          {"stride", 1, kMaxSize},           {"dilation", 1, kMaxSize},
    {"groups", 1, kMaxSize},          {"depth_multiplier", 1, kMaxSize}, {"vocabulary_size", 1, kMaxSize},
    {"embedding_size", 1, kMaxSize},  {"embed_dim", 1, kMaxSize},        {"d_model", 1, kMaxSize},
    {"nhead", 1, kMaxSize},           {"num_heads", 1, kMaxSize},        {"dim_feedforward", 1, kMaxSize},
    {"num_features", 1, kMaxSize},    {"num_sampled", 1, kMaxSize},      {"max_length", 1, kMaxSize},
    {"depth", 1, kMaxSize},           {"multiples", 1, kMaxSize},        {"output_size", 1, kMaxSize},
    {"out_size", 1, kMaxSize},        {"scale", 1, kMaxSize},            {"before", 0, kMaxSize},
    {"after", 0, kMaxSize},           {"depth_radius", 0, kMaxSize},
    // -1: inferred from the first input.
    {"in_units", -1, kMaxSize},       {"in_channels", -1, kMaxSize},
    // Layers made in a loop or iterations run per call: a file must not ask for millions.
    {"num_layers", 1, 10'000},        {"num_encoder_layers", 1, 10'000}, {"num_decoder_layers", 1, 10'000},
    {"n_power_iterations", 0, 10'000},
    // Quantisation bit widths.
    {"bit_w", 1, 32},                 {"bit_a", 1, 32},
};

const SizeField* size_field(std::string_view name) {
  for (const SizeField& f : kSizeFields)
    if (f.name == name) return &f;
  return nullptr;
}

void check_size(const nlohmann::json& v, const SizeField& f, const std::string& path) {
  STRATA_CHECK(v.is_number_integer() && v.get<int64_t>() >= f.min && v.get<int64_t>() <= f.max &&
                   !(v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(f.max)),
               "\"", path, "\" must be an integer in [", std::to_string(f.min), ", ", std::to_string(f.max), "], got ",
               v.dump());
}

}  // namespace

void check_config_numbers(const nlohmann::json& config) {
  // Objects still to walk with their paths; iterative, so no config nests our stack.
  std::vector<std::pair<const nlohmann::json*, std::string>> pending{{&config, ""}};
  while (!pending.empty()) {
    const auto [object, prefix] = pending.back();
    pending.pop_back();
    for (const auto& [key, value] : object->items()) {
      const std::string path = prefix + key;
      if (value.is_object()) {
        if (!value.contains("class")) pending.emplace_back(&value, path + ".");
        continue;
      }
      if (const SizeField* f = size_field(key); f != nullptr && (value.is_number() || value.is_array())) {
        if (value.is_array())
          for (const auto& item : value) check_size(item, *f, path);
        else
          check_size(value, *f, path);
      } else if (value.is_number_float()) {
        STRATA_CHECK(std::isfinite(value.get<double>()), "\"", path, "\" must be a finite number, got ", value.dump());
      }
    }
  }
}

}  // namespace strata::nn::detail
