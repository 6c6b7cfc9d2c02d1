// The field tables of declared options (nn/options.hpp): each field's name, type, rule, doc and
// how to write it to and read it from a layer config. A layer's .cpp defines its table by
// expanding the options' field list once more:
//   STRATA_DEFINE_OPTIONS(DenseOptions, STRATA_DENSE_OPTIONS)
//   STRATA_LAYER("dense", Dense)   // a class with Options, options() and Dense(Options, name)
// This header includes nlohmann/json.hpp: include it from sources, not from public headers.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "strata/core/dtype.hpp"
#include "strata/core/error.hpp"
#include "strata/nn/initializers.hpp"
#include "strata/nn/layer_config.hpp"
#include "strata/nn/layers/activation.hpp"
#include "strata/ops/conv.hpp"
#include "strata/ops/pool.hpp"

namespace strata::nn {

class Layer;

// What values a field may take. Sizes are bounded so that the product of two fits in int64
// (shape arithmetic such as stride x size); the memory they ask for is bounded where weights
// are made.
struct OptionRule {
  enum class Kind { any, range, choice, not_saved };
  Kind kind = Kind::any;
  double min = 0, max = 0;           // range: each number (or each number of a list) in [min, max]
  std::vector<std::string> choices;  // choice: the strings allowed
};
inline constexpr int64_t kMaxOptionSize = INT32_MAX;
OptionRule any();
// An integer (or a list of them) in [min, kMaxOptionSize]; for a float field, a number >= min.
OptionRule at_least(double min);
OptionRule between(double min, double max);
OptionRule one_of(std::vector<std::string> choices);
// Not part of the model file (an initializer: a loaded layer takes its weights from the file).
OptionRule not_saved();

struct OptionField {
  std::string name, type, doc;
  OptionRule rule;
  bool integral = false;     // integers only (for a number or each number of a list)
  std::string default_text;  // the default as declared in C++
  std::function<nlohmann::json(const void* options)> write;              // empty when not saved
  std::function<void(void* options, const nlohmann::json& value)> read;  // empty when not saved
  // A field not saved that code may still set from JSON (an initializer by name, from Python).
  std::function<void(void* options, const nlohmann::json& value)> read_in_code;
  // "[1, 2147483647]", "one of same, valid", "" when any value of the type is allowed.
  std::string rule_text() const;
};

struct OptionTable {
  std::string name;  // the struct's name
  std::vector<OptionField> fields;
  const OptionField* find(std::string_view field) const;
  // Every saved field of default-constructed options, as a config (for docs and Python).
  nlohmann::json defaults;
};

// Defined for each options struct by STRATA_DEFINE_OPTIONS in one .cpp.
template <class Options>
const OptionTable& option_table();

// The config of every saved field.
nlohmann::json write_options(const OptionTable& table, const void* options);
// Reads a config: unknown keys are refused, missing ones keep their defaults, each value is
// checked against its field's type and rule. Errors name the field ("\"units\" must be ...").
void read_options(const OptionTable& table, const nlohmann::json& config, void* options);
// The same for options given by code (Python's keyword arguments): the fields not saved that
// can be read (initializers by name) are accepted too.
void read_code_options(const OptionTable& table, const nlohmann::json& config, void* options);
// Checks constructed options against the rules; errors name `owner` ("dense_1 (dense)"), the
// field and its bound.
void check_options(const OptionTable& table, const void* options, const std::string& owner);
std::string owner_text(const Layer& layer);
// docs/layers.md's generated section: every registered class's options as Markdown tables.
std::string layer_options_markdown();

template <class Options>
nlohmann::json write_options(const Options& options) {
  return write_options(option_table<Options>(), &options);
}
template <class Options>
Options read_options(const nlohmann::json& config) {
  Options options;
  read_options(option_table<Options>(), config, &options);
  return options;
}
template <class Options>
void check_options(const Options& options, const Layer& owner) {
  check_options(option_table<Options>(), &options, owner_text(owner));
}

// How one C++ type becomes JSON and back: `type` names it in docs and errors; `read` throws
// strata::Error saying what was expected. Layers with a type of their own (an enum) specialise
// it in their .cpp, before STRATA_DEFINE_OPTIONS.
template <class T>
struct OptionCodec;

template <>
struct OptionCodec<int64_t> {
  static constexpr const char* type = "int";
  static constexpr bool integral = true;
  static nlohmann::json write(int64_t v) { return v; }
  static int64_t read(const nlohmann::json& j);
};
template <>
struct OptionCodec<int> {
  static constexpr const char* type = "int";
  static constexpr bool integral = true;
  static nlohmann::json write(int v) { return v; }
  static int read(const nlohmann::json& j);
};
template <>
struct OptionCodec<double> {
  static constexpr const char* type = "float";
  static constexpr bool integral = false;
  static nlohmann::json write(double v) { return v; }
  static double read(const nlohmann::json& j);
};
template <>
struct OptionCodec<float> {
  static constexpr const char* type = "float";
  static constexpr bool integral = false;
  static nlohmann::json write(float v) { return v; }
  static float read(const nlohmann::json& j) { return static_cast<float>(OptionCodec<double>::read(j)); }
};
template <>
struct OptionCodec<bool> {
  static constexpr const char* type = "bool";
  static constexpr bool integral = false;
  static nlohmann::json write(bool v) { return v; }
  static bool read(const nlohmann::json& j);
};
template <>
struct OptionCodec<std::string> {
  static constexpr const char* type = "str";
  static constexpr bool integral = false;
  static nlohmann::json write(const std::string& v) { return v; }
  static std::string read(const nlohmann::json& j);
};
template <>
struct OptionCodec<std::vector<int64_t>> {
  static constexpr const char* type = "[int]";
  static constexpr bool integral = true;
  static nlohmann::json write(const std::vector<int64_t>& v) { return v; }
  static std::vector<int64_t> read(const nlohmann::json& j);
};
template <>
struct OptionCodec<std::vector<double>> {
  static constexpr const char* type = "[float]";
  static constexpr bool integral = false;
  static nlohmann::json write(const std::vector<double>& v) { return v; }
  static std::vector<double> read(const nlohmann::json& j);
};
template <>
struct OptionCodec<std::vector<std::vector<int64_t>>> {
  static constexpr const char* type = "[[int]]";
  static constexpr bool integral = true;
  static nlohmann::json write(const std::vector<std::vector<int64_t>>& v) { return v; }
  static std::vector<std::vector<int64_t>> read(const nlohmann::json& j);
};
template <>
struct OptionCodec<Activation> {
  static constexpr const char* type = "activation";
  static constexpr bool integral = false;
  static nlohmann::json write(const Activation& act);  // throws for an unnamed function
  static Activation read(const nlohmann::json& j);
};
template <>
struct OptionCodec<Padding> {
  static constexpr const char* type = "padding";
  static constexpr bool integral = false;
  static nlohmann::json write(const Padding& p);
  static Padding read(const nlohmann::json& j);
};
template <>
struct OptionCodec<ConvOptions> {
  static constexpr const char* type = "conv options";
  static constexpr bool integral = false;
  static nlohmann::json write(const ConvOptions& o);
  static ConvOptions read(const nlohmann::json& j);
};
template <>
struct OptionCodec<PoolOptions> {
  static constexpr const char* type = "pool options";
  static constexpr bool integral = false;
  static nlohmann::json write(const PoolOptions& o);
  static PoolOptions read(const nlohmann::json& j);
};
template <>
struct OptionCodec<DType> {
  static constexpr const char* type = "dtype";
  static constexpr bool integral = false;
  static nlohmann::json write(DType d);
  static DType read(const nlohmann::json& j);
};
template <>
struct OptionCodec<std::shared_ptr<Layer>> {
  static constexpr const char* type = "layer";
  static constexpr bool integral = false;
  static nlohmann::json write(const std::shared_ptr<Layer>& layer);
  static std::shared_ptr<Layer> read(const nlohmann::json& j);
};
template <>
struct OptionCodec<std::vector<std::shared_ptr<Layer>>> {
  static constexpr const char* type = "[layer]";
  static constexpr bool integral = false;
  static nlohmann::json write(const std::vector<std::shared_ptr<Layer>>& layers);
  static std::vector<std::shared_ptr<Layer>> read(const nlohmann::json& j);
};
// Initializers are never saved (not_saved()); code may give one by name: "he_normal", or
// {"name": "truncated_normal", "mean": 0, "stddev": 0.1} (the parameters of nn/initializers.hpp's
// functions, defaults where left out).
template <>
struct OptionCodec<Initializer> {
  static constexpr const char* type = "initializer";
  static constexpr bool integral = false;
  static Initializer read_in_code(const nlohmann::json& j);
};

// An enum saved as one of its names, which become its fields' choices: in the layer's .cpp,
//   STRATA_ENUM_OPTION(ResizeMethod, {ResizeMethod::bilinear, "bilinear"}, {ResizeMethod::nearest, "nearest"})
#define STRATA_ENUM_OPTION(Enum, ...)                                                              \
  template <>                                                                                      \
  struct OptionCodec<Enum> {                                                                       \
    static constexpr const char* type = "str";                                                     \
    static constexpr bool integral = false;                                                        \
    static const std::vector<std::pair<Enum, std::string>>& names() {                              \
      static const std::vector<std::pair<Enum, std::string>> table{__VA_ARGS__};                   \
      return table;                                                                                \
    }                                                                                              \
    static nlohmann::json write(Enum e) { return ::strata::nn::detail::enum_name(names(), e); }    \
    static Enum read(const nlohmann::json& j) { return ::strata::nn::detail::enum_value(names(), j); } \
  }

namespace detail {

template <class Enum>
std::string enum_name(const std::vector<std::pair<Enum, std::string>>& names, Enum e) {
  for (const auto& [value, name] : names)
    if (value == e) return name;
  throw Error("an enum value without a name (" + std::to_string(static_cast<int64_t>(e)) + ")");
}
std::string joined_names(const std::vector<std::string>& names);
template <class Enum>
Enum enum_value(const std::vector<std::pair<Enum, std::string>>& names, const nlohmann::json& j) {
  std::vector<std::string> known;
  for (const auto& [value, name] : names) {
    if (j.is_string() && j.get<std::string>() == name) return value;
    known.push_back(name);
  }
  throw Error("expected one of " + joined_names(known) + ", got " + j.dump().substr(0, 100));
}

template <class Options, class T>
OptionField make_field(const char* name, T Options::*member, OptionRule rule, const char* doc, const char* default_text) {
  OptionField f{name, OptionCodec<T>::type, doc, std::move(rule), OptionCodec<T>::integral, default_text, {}, {}, {}};
  // An enum's names (STRATA_ENUM_OPTION) are its field's choices.
  if constexpr (requires { OptionCodec<T>::names(); }) {
    f.rule.kind = OptionRule::Kind::choice;
    f.rule.choices.clear();
    for (const auto& [value, n] : OptionCodec<T>::names()) f.rule.choices.push_back(n);
  }
  if constexpr (requires(const nlohmann::json& j) { OptionCodec<T>::read(j); }) {
    if (f.rule.kind != OptionRule::Kind::not_saved) {
      f.write = [member](const void* o) { return OptionCodec<T>::write(static_cast<const Options*>(o)->*member); };
      f.read = [member](void* o, const nlohmann::json& j) { static_cast<Options*>(o)->*member = OptionCodec<T>::read(j); };
    }
  }
  if constexpr (requires(const nlohmann::json& j) { OptionCodec<T>::read_in_code(j); }) {
    f.read_in_code = [member](void* o, const nlohmann::json& j) {
      static_cast<Options*>(o)->*member = OptionCodec<T>::read_in_code(j);
    };
  }
  return f;
}

OptionTable finish_table(std::string name, std::vector<OptionField> fields, const void* defaults);

}  // namespace detail

#define STRATA_OPTION_FIELD(type, name, default_value, rule, doc) \
  ::strata::nn::detail::make_field(#name, &Options_::name, rule, doc, #default_value),
// Inside namespace strata::nn, in the .cpp of the layer that owns the options.
#define STRATA_DEFINE_OPTIONS(Struct, LIST)                                                                  \
  template <>                                                                                                \
  const ::strata::nn::OptionTable& option_table<Struct>() {                                                  \
    using Options_ = Struct;                                                                                 \
    static const Options_ defaults{};                                                                        \
    static const ::strata::nn::OptionTable table =                                                           \
        ::strata::nn::detail::finish_table(#Struct, {LIST(STRATA_OPTION_FIELD)}, &defaults);                 \
    return table;                                                                                            \
  }

// Registers a layer class whose options are declared: `Class::Options` the options struct,
// `options()` its options (as the layer would be rebuilt: sizes it inferred filled in) and a
// constructor `Class(Options, std::string name)`.
#define STRATA_LAYER(kind, Class)                                                                 \
  static const ::strata::nn::LayerClass STRATA_LAYER_CLASS_CAT(strata_layer_class_, __COUNTER__)( \
      kind, ::strata::nn::detail::declared_layer_class<Class, Class>(#Class))
// The same for a kind whose layers may also be made as its base class (nn::Recurrent("lstm",
// ...)): they are written through Base's options().
#define STRATA_LAYER_WRITTEN_AS(kind, Class, Base)                                                \
  static const ::strata::nn::LayerClass STRATA_LAYER_CLASS_CAT(strata_layer_class_, __COUNTER__)( \
      kind, ::strata::nn::detail::declared_layer_class<Class, Base>(#Class))

namespace detail {

template <class L, class Written>
LayerClassEntry declared_layer_class(std::string class_name) {
  using Options = typename L::Options;
  LayerClassEntry entry;
  entry.class_name = std::move(class_name);
  entry.make = [](const nlohmann::json& config, const std::string& name) -> std::shared_ptr<Layer> {
    return std::make_shared<L>(read_options<Options>(config), name);
  };
  entry.write = [](const Layer& layer) {
    const auto* own = dynamic_cast<const Written*>(&layer);
    STRATA_CHECK(own != nullptr, owner_text(layer), ": its kind is registered for another class");
    return write_options(own->options());
  };
  entry.make_in_code = [](const nlohmann::json& config, const std::string& name) -> std::shared_ptr<Layer> {
    Options options;
    read_code_options(option_table<Options>(), config, &options);
    return std::make_shared<L>(std::move(options), name);
  };
  entry.options = &option_table<Options>;
  return entry;
}

}  // namespace detail
}  // namespace strata::nn
