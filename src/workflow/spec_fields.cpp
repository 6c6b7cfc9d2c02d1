#include "spec_fields.hpp"

#include <algorithm>

#include "strata/core/error.hpp"

namespace strata::workflow::detail {

using nlohmann::json;

namespace {

// A reader for `key` that checks the value's type with `ok` before `store` takes it.
template <class Check, class Store>
std::function<void(const json&)> typed(const std::string& who, const std::string& key, const char* what, Check ok,
                                       Store store) {
  return [=](const json& v) {
    STRATA_CHECK(ok(v), who, ": \"", key, "\" must be ", what, ", got ", v.dump().substr(0, 200));
    store(v);
  };
}

bool all_strings(const json& v) {
  if (!v.is_array()) return false;
  for (const auto& s : v)
    if (!s.is_string()) return false;
  return true;
}

}  // namespace

SpecFields& SpecFields::text(const std::string& key, std::string& out) {
  return custom(key, typed(who_, key, "a string", [](const json& v) { return v.is_string(); },
                           [&out](const json& v) { out = v.get<std::string>(); }));
}

SpecFields& SpecFields::number(const std::string& key, double& out) {
  return custom(key, typed(who_, key, "a number", [](const json& v) { return v.is_number(); },
                           [&out](const json& v) { out = v.get<double>(); }));
}

SpecFields& SpecFields::integer(const std::string& key, int64_t& out) {
  return custom(key, typed(who_, key, "an integer", [](const json& v) { return v.is_number_integer(); },
                           [&out](const json& v) { out = v.get<int64_t>(); }));
}

SpecFields& SpecFields::strings(const std::string& key, std::vector<std::string>& out) {
  return custom(key, typed(who_, key, "an array of strings", all_strings,
                           [&out](const json& v) { out = v.get<std::vector<std::string>>(); }));
}

SpecFields& SpecFields::object(const std::string& key, json& out) {
  return custom(key, typed(who_, key, "an object", [](const json& v) { return v.is_object(); },
                           [&out](const json& v) { out = v; }));
}

SpecFields& SpecFields::task_options(std::vector<std::string>& tags, int64_t& max_attempts, int64_t& priority) {
  return strings("tags", tags).integer("max_attempts", max_attempts).integer("priority", priority);
}

SpecFields& SpecFields::custom(const std::string& key, std::function<void(const json&)> read) {
  fields_.emplace_back(key, std::move(read));
  return *this;
}

void SpecFields::read(const json& j) const {
  STRATA_CHECK(j.is_object(), who_, ": expected a JSON object, got ", j.dump().substr(0, 200));
  for (const auto& item : j.items()) {
    // Named, not a structured binding: clang 14 (the sanitizer build) cannot capture one.
    const std::string& key = item.key();
    const json& value = item.value();
    const auto it = std::find_if(fields_.begin(), fields_.end(), [&](const auto& f) { return f.first == key; });
    if (it != fields_.end()) {
      it->second(value);
      continue;
    }
    std::string known;
    for (const auto& f : fields_) known += (known.empty() ? "" : ", ") + f.first;
    throw Error(who_ + ": unknown field \"" + key + "\"; expected " + known);
  }
}

std::string SpecFields::name_in(const json& j, const std::string& fallback) {
  return j.is_object() && j.contains("name") && j["name"].is_string() ? j["name"].get<std::string>() : fallback;
}

}  // namespace strata::workflow::detail
