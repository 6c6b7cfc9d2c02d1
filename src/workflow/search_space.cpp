// Search spaces from JSON, their grids and their seeded samples.
#include "strata/workflow/search_space.hpp"

#include <algorithm>
#include <cmath>
#include <random>

#include "strata/core/error.hpp"
#include "strata/core/limits.hpp"

namespace strata::workflow {

using nlohmann::json;
using Type = SearchDimension::Type;

namespace {

constexpr double kMaxExactInteger = 9007199254740992.0;  // 2^53

SearchDimension parse_dimension(const std::string& name, const json& j) {
  const std::string who = "search space: parameter \"" + name + "\"";
  STRATA_CHECK(j.is_object(), who, " must be an object ({\"choices\": [...]} or {\"type\": \"int\"|\"float\", ",
               "\"min\", \"max\"}), got ", j.dump());
  SearchDimension d{.name = name};
  if (j.contains("choices")) {
    for (const auto& [key, value] : j.items())
      STRATA_CHECK(key == "choices", who, ": a choice takes only \"choices\", got \"", key, "\"");
    STRATA_CHECK(j["choices"].is_array() && !j["choices"].empty(), who, ": \"choices\" must be a non-empty array, got ",
                 j["choices"].dump());
    d.choices.assign(j["choices"].begin(), j["choices"].end());
    return d;
  }
  STRATA_CHECK(j.contains("type") && j["type"].is_string(), who, " needs \"choices\" or a \"type\" (\"int\" or \"float\")");
  const std::string type = j["type"];
  STRATA_CHECK(type == "int" || type == "float", who, ": type must be \"int\" or \"float\", got \"", type, "\"");
  d.type = type == "int" ? Type::integer : Type::real;
  for (const auto& [key, value] : j.items()) {
    if (key == "type") continue;
    if (key == "min" || key == "max") {
      STRATA_CHECK(value.is_number(), who, ": \"", key, "\" must be a number, got ", value.dump());
      (key == "min" ? d.min : d.max) = value.get<double>();
    } else if (key == "log") {
      STRATA_CHECK(value.is_boolean(), who, ": \"log\" must be true or false, got ", value.dump());
      d.log = value;
    } else if (key == "steps") {
      STRATA_CHECK(value.is_number_integer() && value.get<int64_t>() >= 1, who,
                   ": \"steps\" must be a positive integer, got ", value.dump());
      d.steps = value;
    } else {
      throw Error(who + ": unknown field \"" + key + "\"; a range takes type, min, max, log, steps");
    }
  }
  STRATA_CHECK(j.contains("min") && j.contains("max"), who, " needs \"min\" and \"max\"");
  STRATA_CHECK(d.min <= d.max, who, ": min (", std::to_string(d.min), ") is above max (", std::to_string(d.max), ")");
  STRATA_CHECK(!d.log || d.min > 0, who, ": a log scale needs min > 0, got ", std::to_string(d.min));
  if (d.type == Type::integer) {
    STRATA_CHECK(d.min == std::floor(d.min) && d.max == std::floor(d.max), who, ": an int range needs integer bounds");
    // Beyond 2^53 a double does not hold every integer: stepping by one would not advance.
    STRATA_CHECK(std::fabs(d.min) <= kMaxExactInteger && std::fabs(d.max) <= kMaxExactInteger, who,
                 ": an int range's bounds must be within +-2^53, got [", json(d.min).dump(), ", ", json(d.max).dump(), "]");
  }
  return d;
}

// The point at fraction t in [0, 1] of the range, on its scale.
double along(const SearchDimension& d, double t) {
  if (d.log) return std::exp(std::log(d.min) + t * (std::log(d.max) - std::log(d.min)));
  return d.min + t * (d.max - d.min);
}

std::vector<json> values_of(const SearchDimension& d) {
  std::vector<json> out;
  if (d.type == Type::choice) return d.choices;
  if (d.type == Type::integer && d.steps == 0) {
    for (auto v = static_cast<int64_t>(d.min); v <= static_cast<int64_t>(d.max); ++v) out.push_back(v);
    return out;
  }
  STRATA_CHECK(d.steps >= 1, "search space: parameter \"", d.name, "\" is a float range: a grid needs its \"steps\"");
  for (int64_t i = 0; i < d.steps; ++i) {
    // The ends exactly: exp(log(x)) need not give x back.
    const double v = i == 0 ? d.min : i == d.steps - 1 ? d.max : along(d, double(i) / double(d.steps - 1));
    if (d.type == Type::real) {
      out.push_back(v);
    } else {
      const json rounded = static_cast<int64_t>(std::llround(v));
      if (std::find(out.begin(), out.end(), rounded) == out.end()) out.push_back(rounded);
    }
  }
  return out;
}

// How many values values_of gives, without making them (an int grid of `steps` may give fewer).
uint64_t value_count(const SearchDimension& d) {
  if (d.type == Type::choice) return d.choices.size();
  const auto every = static_cast<uint64_t>(d.max - d.min) + 1;  // exact: both within 2^53
  if (d.type == Type::integer) return d.steps == 0 ? every : std::min(every, static_cast<uint64_t>(d.steps));
  return static_cast<uint64_t>(d.steps);
}

double uniform01(std::mt19937_64& g) { return double(g() >> 11) * 0x1.0p-53; }

}  // namespace

SearchSpace SearchSpace::from_json(const json& space) {
  STRATA_CHECK(space.is_object() && !space.empty(), "search space: expected an object of parameters, got ",
               space.dump().substr(0, 200));
  SearchSpace s;
  for (const auto& [name, value] : space.items()) s.dims_.push_back(parse_dimension(name, value));
  return s;
}

uint64_t SearchSpace::grid_size() const {
  const uint64_t limit = limits().max_plan_tasks;
  uint64_t size = 1;
  for (const auto& d : dims_) {
    uint64_t next = 0;
    if (__builtin_mul_overflow(size, value_count(d), &next))
      check_limit("search space grid", "configurations: more than", UINT64_MAX, "max_plan_tasks", limit);
    check_limit("search space grid", "configurations", next, "max_plan_tasks", limit);
    size = next;
  }
  return size;
}

std::vector<json> SearchSpace::grid() const {
  grid_size();  // refuses a grid above the limit before making any of it
  std::vector<json> out{json::object()};
  for (const auto& d : dims_) {
    const std::vector<json> values = values_of(d);
    std::vector<json> next;
    next.reserve(out.size() * values.size());
    for (const auto& partial : out)
      for (const auto& v : values) {
        json c = partial;
        c[d.name] = v;
        next.push_back(std::move(c));
      }
    out = std::move(next);
  }
  return out;
}

std::vector<json> SearchSpace::sample(int64_t n, uint64_t seed) const {
  STRATA_CHECK(n >= 0, "SearchSpace::sample: n must not be negative, got ", std::to_string(n));
  check_limit("search space sample", "configurations", static_cast<uint64_t>(n), "max_plan_tasks", limits().max_plan_tasks);
  std::mt19937_64 g(seed);
  std::vector<json> out;
  for (int64_t i = 0; i < n; ++i) {
    json c = json::object();
    for (const auto& d : dims_) {
      const double u = uniform01(g);
      if (d.type == Type::choice) {
        c[d.name] = d.choices[std::min(d.choices.size() - 1, static_cast<size_t>(u * double(d.choices.size())))];
      } else if (d.type == Type::real) {
        c[d.name] = along(d, u);
      } else {  // an integer: uniform over the values, or over their logs
        const double lo = d.log ? std::log(d.min) : d.min, hi = d.log ? std::log(d.max + 1) : d.max + 1;
        const double x = lo + u * (hi - lo);
        c[d.name] = std::clamp(static_cast<int64_t>(std::floor(d.log ? std::exp(x) : x)), static_cast<int64_t>(d.min),
                               static_cast<int64_t>(d.max));
      }
    }
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace strata::workflow
