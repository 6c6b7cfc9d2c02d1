#include "strata/nn/option_table.hpp"

#include <cmath>
#include <limits>

#include "strata/core/limits.hpp"
#include "strata/nn/layer.hpp"
#include "strata/nn/layer_config.hpp"

namespace strata::nn {
namespace {

using nlohmann::json;

std::string number_text(double v) {
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (v == std::floor(v) && std::abs(v) < 1e15) return std::to_string(static_cast<int64_t>(v));
  json j = v;
  return j.dump();
}

// An integer's open upper end is the size bound.
std::string range_text(double min, double max, bool integral) {
  if (integral && std::isinf(max)) max = static_cast<double>(kMaxOptionSize);
  return "[" + number_text(min) + ", " + number_text(max) + "]";
}

// Each number of `value` (a number or nested lists of numbers) within [min, max], integers
// where `integral`. `path` names the field in the error.
void check_numbers(const json& value, double min, double max, bool integral, const std::string& path) {
  if (value.is_array()) {
    for (const json& item : value) check_numbers(item, min, max, integral, path);
    return;
  }
  if (!value.is_number()) return;  // the codec refuses a value of the wrong type
  const bool ok = integral ? value.is_number_integer() &&
                                 !(value.is_number_unsigned() && value.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) &&
                                 static_cast<double>(value.get<int64_t>()) >= min &&
                                 static_cast<double>(value.get<int64_t>()) <= max
                           : std::isfinite(value.get<double>()) && value.get<double>() >= min && value.get<double>() <= max;
  if (ok) return;
  throw Error("\"" + path + "\" must be " + (integral ? "an integer in " : "a number in ") +
              range_text(min, max, integral) + ", got " + value.dump());
}

void check_rule(const OptionField& field, const json& value, const std::string& path) {
  switch (field.rule.kind) {
    case OptionRule::Kind::range: check_numbers(value, field.rule.min, field.rule.max, field.integral, path); break;
    case OptionRule::Kind::choice:
      for (const std::string& c : field.rule.choices)
        if (value.is_string() && value.get<std::string>() == c) return;
      throw Error("\"" + path + "\" must be " + field.rule_text() + ", got " + value.dump().substr(0, 100));
    default: break;
  }
}

const json& expect_list(const json& j) {
  STRATA_CHECK(j.is_array(), "expected a list, got ", j.dump().substr(0, 100));
  return j;
}

// A nested field of a codec ("options.stride"): its path and rule in the error.
template <class T>
T read_nested(const json& object, const char* key, const T& fallback, double min, double max) {
  if (!object.contains(key)) return fallback;
  const json& value = object[key];
  check_numbers(value, min, max, OptionCodec<T>::integral, key);
  try {
    return OptionCodec<T>::read(value);
  } catch (const Error& e) {
    throw Error("\"" + std::string(key) + "\": " + e.what());
  }
}

void refuse_unknown_keys(const json& object, std::initializer_list<const char*> keys) {
  for (const auto& [key, value] : object.items()) {
    bool known = false;
    for (const char* k : keys) known = known || key == k;
    STRATA_CHECK(known, "unknown key \"", key, "\"");
  }
}

}  // namespace

OptionRule any() { return {}; }
OptionRule at_least(double min) {
  return {OptionRule::Kind::range, min, std::numeric_limits<double>::infinity(), {}};
}
OptionRule between(double min, double max) { return {OptionRule::Kind::range, min, max, {}}; }
OptionRule one_of(std::vector<std::string> choices) { return {OptionRule::Kind::choice, 0, 0, std::move(choices)}; }
OptionRule not_saved() { return {OptionRule::Kind::not_saved, 0, 0, {}}; }

std::string OptionField::rule_text() const {
  switch (rule.kind) {
    case OptionRule::Kind::range: return range_text(rule.min, rule.max, integral);
    case OptionRule::Kind::choice: return "one of " + detail::joined_names(rule.choices);
    case OptionRule::Kind::not_saved: return "not saved";
    default: return "";
  }
}

const OptionField* OptionTable::find(std::string_view field) const {
  for (const OptionField& f : fields)
    if (f.name == field) return &f;
  return nullptr;
}

namespace detail {

std::string joined_names(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

OptionTable finish_table(std::string name, std::vector<OptionField> fields, const void* defaults) {
  // Integer sizes end at kMaxOptionSize, so every check and every doc states the same bound.
  for (OptionField& f : fields)
    if (f.rule.kind == OptionRule::Kind::range && f.integral && std::isinf(f.rule.max))
      f.rule.max = static_cast<double>(kMaxOptionSize);
  OptionTable table{std::move(name), std::move(fields), {}};
  table.defaults = write_options(table, defaults);
  return table;
}

}  // namespace detail

json write_options(const OptionTable& table, const void* options) {
  json out = json::object();
  for (const OptionField& f : table.fields) {
    if (!f.write) continue;
    try {
      out[f.name] = f.write(options);
    } catch (const Error& e) {
      throw Error("\"" + f.name + "\": " + e.what());
    }
  }
  return out;
}

namespace {

void read_fields(const OptionTable& table, const json& config, void* options, bool from_code) {
  STRATA_CHECK(config.is_object(), "expected an object of options, got ", config.dump().substr(0, 100));
  for (const auto& [key, value] : config.items()) {
    const OptionField* f = table.find(key);
    if (from_code && f != nullptr && !f->read && f->read_in_code) {
      try {
        f->read_in_code(options, value);
      } catch (const Error& e) {
        throw Error("\"" + key + "\": " + e.what());
      }
      continue;
    }
    if (f == nullptr || !f->read) {
      std::vector<std::string> names;
      for (const OptionField& field : table.fields)
        if (field.read) names.push_back(field.name);
      throw Error("unknown option \"" + key + "\" (" + table.name + " has " + detail::joined_names(names) + ")");
    }
    try {
      f->read(options, value);
    } catch (const LimitError& e) {
      throw LimitError("\"" + key + "\": " + e.what());
    } catch (const Error& e) {
      throw Error("\"" + key + "\": " + e.what());
    }
    check_rule(*f, value, key);
  }
  // Missing fields keep their defaults, which must still satisfy the rules ("units" has none).
  for (const OptionField& f : table.fields)
    if (f.write && !config.contains(f.name)) check_rule(f, f.write(options), f.name);
}

}  // namespace

void read_options(const OptionTable& table, const json& config, void* options) {
  read_fields(table, config, options, false);
}

void read_code_options(const OptionTable& table, const json& config, void* options) {
  read_fields(table, config, options, true);
}

void check_options(const OptionTable& table, const void* options, const std::string& owner) {
  for (const OptionField& f : table.fields) {
    if (!f.write || f.rule.kind == OptionRule::Kind::any) continue;
    try {
      check_rule(f, f.write(options), f.name);
    } catch (const Error& e) {
      throw Error(owner + ": " + e.what());
    }
  }
}

std::string owner_text(const Layer& layer) { return layer.name() + " (" + layer.kind() + ")"; }

// --- codecs ---

int64_t OptionCodec<int64_t>::read(const json& j) {
  STRATA_CHECK(j.is_number_integer() && !(j.is_number_unsigned() && j.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)),
               "expected an integer, got ", j.dump().substr(0, 100));
  return j.get<int64_t>();
}

int OptionCodec<int>::read(const json& j) {
  const int64_t v = OptionCodec<int64_t>::read(j);
  STRATA_CHECK(v >= INT32_MIN && v <= INT32_MAX, "expected a 32-bit integer, got ", j.dump());
  return static_cast<int>(v);
}

double OptionCodec<double>::read(const json& j) {
  STRATA_CHECK(j.is_number() && std::isfinite(j.get<double>()), "expected a finite number, got ",
               j.dump().substr(0, 100));
  return j.get<double>();
}

bool OptionCodec<bool>::read(const json& j) {
  STRATA_CHECK(j.is_boolean(), "expected true or false, got ", j.dump().substr(0, 100));
  return j.get<bool>();
}

std::string OptionCodec<std::string>::read(const json& j) {
  STRATA_CHECK(j.is_string(), "expected a string, got ", j.dump().substr(0, 100));
  return j.get<std::string>();
}

std::vector<int64_t> OptionCodec<std::vector<int64_t>>::read(const json& j) {
  std::vector<int64_t> out;
  for (const json& item : expect_list(j)) out.push_back(OptionCodec<int64_t>::read(item));
  return out;
}

std::vector<double> OptionCodec<std::vector<double>>::read(const json& j) {
  std::vector<double> out;
  for (const json& item : expect_list(j)) out.push_back(OptionCodec<double>::read(item));
  return out;
}

std::vector<std::vector<int64_t>> OptionCodec<std::vector<std::vector<int64_t>>>::read(const json& j) {
  std::vector<std::vector<int64_t>> out;
  for (const json& item : expect_list(j)) out.push_back(OptionCodec<std::vector<int64_t>>::read(item));
  return out;
}

json OptionCodec<Activation>::write(const Activation& act) {
  STRATA_CHECK(!act || !act.name().empty(),
               "its activation is an unnamed function, which a saved model cannot hold; give it by name "
               "(\"relu\") or register it with nn::register_function and pass that name");
  return act.name();
}

Activation OptionCodec<Activation>::read(const json& j) {
  STRATA_CHECK(j.is_string(), "expected an activation's name, got ", j.dump().substr(0, 100));
  return Activation(j.get<std::string>());
}

json OptionCodec<Padding>::write(const Padding& p) {
  switch (p.kind) {
    case Padding::Kind::same: return "same";
    case Padding::Kind::valid: return "valid";
    default: return {{"before", p.before}, {"after", p.after}};
  }
}

Padding OptionCodec<Padding>::read(const json& j) {
  if (j.is_string()) {
    const std::string s = j.get<std::string>();
    if (s == "same" || s == "SAME") return Padding::same();
    if (s == "valid" || s == "VALID") return Padding::valid();
    throw Error("expected \"same\", \"valid\" or {before, after}, got \"" + s + "\"");
  }
  STRATA_CHECK(j.is_object() && j.contains("before") && j.contains("after"),
               "expected \"same\", \"valid\" or {before, after}, got ", j.dump().substr(0, 100));
  refuse_unknown_keys(j, {"before", "after"});
  const auto max = static_cast<double>(kMaxOptionSize);
  return Padding::explicit_(read_nested<SpatialSizes>(j, "before", {}, 0, max),
                            read_nested<SpatialSizes>(j, "after", {}, 0, max));
}

json OptionCodec<ConvOptions>::write(const ConvOptions& o) {
  json c = {{"stride", o.stride}, {"padding", OptionCodec<Padding>::write(o.padding)}, {"dilation", o.dilation},
            {"groups", o.groups}};
  if (o.fuse_relu) c["fuse_relu"] = true;  // only when a user asked for it: older files lack the key
  return c;
}

ConvOptions OptionCodec<ConvOptions>::read(const json& j) {
  STRATA_CHECK(j.is_object(), "expected an object {stride, padding, dilation, groups}, got ", j.dump().substr(0, 100));
  refuse_unknown_keys(j, {"stride", "padding", "dilation", "groups", "fuse_relu"});
  const auto max = static_cast<double>(kMaxOptionSize);
  ConvOptions o;
  o.stride = read_nested(j, "stride", o.stride, 1, max);
  if (j.contains("padding")) o.padding = OptionCodec<Padding>::read(j["padding"]);
  o.dilation = read_nested(j, "dilation", o.dilation, 1, max);
  o.groups = read_nested(j, "groups", o.groups, 1, max);
  o.fuse_relu = read_nested(j, "fuse_relu", o.fuse_relu, 0, 0);
  return o;
}

json OptionCodec<PoolOptions>::write(const PoolOptions& o) {
  return {{"stride", o.stride}, {"padding", OptionCodec<Padding>::write(o.padding)}};
}

PoolOptions OptionCodec<PoolOptions>::read(const json& j) {
  STRATA_CHECK(j.is_object(), "expected an object {stride, padding}, got ", j.dump().substr(0, 100));
  refuse_unknown_keys(j, {"stride", "padding"});
  PoolOptions o;
  o.stride = read_nested(j, "stride", o.stride, 1, static_cast<double>(kMaxOptionSize));
  if (j.contains("padding")) o.padding = OptionCodec<Padding>::read(j["padding"]);
  return o;
}

json OptionCodec<DType>::write(DType d) { return dtype_name(d); }

DType OptionCodec<DType>::read(const json& j) {
  STRATA_CHECK(j.is_string(), "expected a dtype's name, got ", j.dump().substr(0, 100));
  const std::string s = j.get<std::string>();
  for (DType t : {kFloat32, kFloat64, kBFloat16, kInt64, kInt32, kUInt8, kBool})
    if (s == dtype_name(t)) return t;
  throw Error("unknown dtype '" + s + "'");
}

// No layer (a wrapper's default, which its constructor refuses) is null.
json OptionCodec<std::shared_ptr<Layer>>::write(const std::shared_ptr<Layer>& layer) {
  return layer == nullptr ? json(nullptr) : layer_config(*layer);
}

std::shared_ptr<Layer> OptionCodec<std::shared_ptr<Layer>>::read(const json& j) {
  return j.is_null() ? nullptr : layer_from_config(j);
}

json OptionCodec<std::vector<std::shared_ptr<Layer>>>::write(const std::vector<std::shared_ptr<Layer>>& layers) {
  json out = json::array();
  for (const auto& l : layers) out.push_back(OptionCodec<std::shared_ptr<Layer>>::write(l));
  return out;
}

std::vector<std::shared_ptr<Layer>> OptionCodec<std::vector<std::shared_ptr<Layer>>>::read(const json& j) {
  std::vector<std::shared_ptr<Layer>> out;
  for (const json& item : expect_list(j)) out.push_back(layer_from_config(item));
  return out;
}

Initializer OptionCodec<Initializer>::read_in_code(const json& j) {
  const json spec = j.is_string() ? json{{"name", j}} : j;
  STRATA_CHECK(spec.is_object() && spec.contains("name") && spec["name"].is_string(),
               "expected an initializer's name or {\"name\": ..., parameters}, got ", j.dump().substr(0, 100));
  const std::string name = spec["name"].get<std::string>();
  auto number = [&](const char* key, double fallback) {
    return spec.contains(key) ? OptionCodec<double>::read(spec[key]) : fallback;
  };
  if (name == "zeros") return zeros_init();
  if (name == "ones") return ones_init();
  if (name == "constant") return constant_init(number("value", 0.0));
  if (name == "random_uniform") return random_uniform(number("minval", -0.05), number("maxval", 0.05));
  if (name == "random_normal") return random_normal(number("mean", 0.0), number("stddev", 0.05));
  if (name == "truncated_normal") return truncated_normal(number("mean", 0.0), number("stddev", 0.05));
  if (name == "glorot_uniform" || name == "xavier_uniform") return glorot_uniform();
  if (name == "glorot_normal" || name == "xavier_normal") return glorot_normal();
  if (name == "he_uniform") return he_uniform();
  if (name == "he_normal") return he_normal();
  if (name == "orthogonal") return orthogonal(number("gain", 1.0));
  throw Error("unknown initializer '" + name +
              "' (zeros, ones, constant, random_uniform, random_normal, truncated_normal, glorot_uniform, "
              "glorot_normal, he_uniform, he_normal, orthogonal)");
}

}  // namespace strata::nn
