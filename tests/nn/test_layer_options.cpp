// Declared layer options (nn/options.hpp): every registered class has a field table; every saved
// field survives the model file's config with a value other than its default; every declared
// bound is refused naming the layer, the field and the bound; docs/layers.md's table is current.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

#include "support/expect_error.hpp"
#include "strata/nn/functions.hpp"
#include "strata/nn/option_table.hpp"
#include "strata/strata.hpp"

namespace strata {
namespace {

using nlohmann::json;

const bool option_functions_registered = [] {
  nn::register_function("options_test_fn", [](const Tensor& x) { return x * 2.0; });
  return true;
}();

// A value of the field's type other than `current`, inside the field's rule.
json other_value(const nn::OptionField& f, const json& current) {
  const bool ranged = f.rule.kind == nn::OptionRule::Kind::range;
  auto other_number = [&](const json& v) -> json {
    const double d = v.is_number() ? v.get<double>() : 0.0;
    double next = f.integral ? d + 1 : d + 0.25;
    if (f.integral && d == -1) next = 3;  // "-1: inferred" fields: a size
    if (ranged && next < f.rule.min) next = f.rule.min;
    if (ranged && next > f.rule.max) next = f.integral ? f.rule.min : (f.rule.min + d) / 2;
    if (f.integral) return static_cast<int64_t>(next);
    return next;
  };
  if (f.rule.kind == nn::OptionRule::Kind::choice) {
    for (const std::string& c : f.rule.choices)
      if (json(c) != current) return c;
  }
  if (f.type == "int" || f.type == "float") return other_number(current);
  if (f.type == "bool") return !current.get<bool>();
  if (f.type == "activation") return current == "tanh" ? "relu" : "tanh";
  if (f.type == "padding") return current == "same" ? "valid" : "same";
  if (f.type == "dtype") return current == "int64" ? "float32" : "int64";
  if (f.type == "[int]" || f.type == "[float]") {
    if (current.empty()) return json::array({other_number(json(f.integral ? 1 : 0.5))});
    json out = json::array();
    for (const json& v : current) out.push_back(other_number(v));
    return out;
  }
  if (f.type == "transformer options") {
    json out = current;
    for (auto& [key, v] : out.items()) {
      if (v.is_boolean()) v = !v.get<bool>();
      else if (v.is_number_integer()) v = v.get<int64_t>() + 1;
      else if (v.is_number_float()) v = v.get<double>() / 2 + 0.125;
    }
    return out;
  }
  if (f.type == "conv options" || f.type == "pool options") {
    json out = current;
    json stride = json::array();
    for (size_t i = 0; i < std::max<size_t>(1, current.value("stride", json::array()).size()); ++i) stride.push_back(2);
    out["stride"] = stride;
    out["padding"] = current.value("padding", json("valid")) == "same" ? "valid" : "same";
    return out;
  }
  return current;  // the caller reports fields it could not vary
}

std::shared_ptr<nn::Layer> build(const std::string& kind, const json& config) {
  return nn::layer_from_config({{"class", kind}, {"name", kind + "_under_test"}, {"config", config}});
}

// Fields that need a value of their own (a registered function, a layer to wrap, a value that
// must agree with another field).
json special_value(const std::string& kind, const nn::OptionField& f) {
  if (f.type == "layer") return nn::layer_config(nn::Dense(3, "relu", kind + "_inner"));
  if (f.type == "recurrent layer") return nn::layer_config(nn::LSTM(3, {}, kind + "_inner"));
  if (f.type == "[layer]") return json::array({nn::layer_config(nn::Dense(3, "relu", kind + "_inner"))});
  if (f.name == "function") return "options_test_fn";
  if (f.type == "[weight]") return json::array({{{"name", "w"}, {"shape", {2}}, {"dtype", "float32"}}});
  // A list one value per spatial axis (an empty default: filled in from the layer's rank).
  if (f.type == "[int]" && kind.size() > 2 && kind.substr(kind.size() - 1) == "d" && f.name == "output_size")
    return json(std::vector<int64_t>(kind[kind.size() - 2] - '0', 2));
  if (kind == "zeropad1d") return json::array({{1, 2}});
  if (kind == "zeropad2d") return json::array({{1, 2}, {0, 1}});
  if (kind == "zeropad3d") return json::array({{1, 2}, {0, 1}, {2, 0}});
  if (kind == "padlayer" && f.name == "padding") return json::array({{1, 2}, {0, 0}});
  if (kind == "groupconv2d" && f.name == "n_filter") return 4;  // a multiple of its 2 groups
  if (kind == "word2vecembedding" && f.name == "vocabulary_size") return 100;  // above num_sampled
  if (kind == "setabstraction" && f.name == "mlp") return json::array({json::array({4, 8})});  // one per scale
  if (kind == "locallyconnectedgraph" && f.name == "parents") return json::array({-1, 0, 1, 0});  // a tree
  return nullptr;
}

TEST(LayerOptionsTest, EveryRegisteredClassDeclaresItsOptions) {
  for (const std::string& kind : nn::registered_layer_classes()) {
    if (kind == "model") continue;  // its config is its graph (nn/model.hpp)
    EXPECT_NE(nn::layer_options(kind), nullptr) << kind << " has no declared options";
  }
}

// Fields whose default is their only valid value in a saved model: the wrappers save only a
// Dense's or a convolution's "W".
const std::set<std::string> kSingleValued = {"spectralnorm.weight", "weightnorm.weight"};

// Every saved field of `kind` given a value other than its default (the layer must accept it).
json varied_config(const std::string& kind, const nn::OptionTable& table, int* varied) {
  json config = table.defaults;
  for (const nn::OptionField& f : table.fields) {
    if (!f.read || kSingleValued.count(kind + "." + f.name)) continue;
    const json special = special_value(kind, f);
    config[f.name] = special.is_null() ? other_value(f, config[f.name]) : special;
    if (config[f.name] != table.defaults.value(f.name, json())) ++*varied;
    else ADD_FAILURE() << kind << "." << f.name << ": no other value was found for type " << f.type;
  }
  return config;
}

TEST(LayerOptionsTest, EveryFieldRoundTripsWithAValueOtherThanItsDefault) {
  int varied = 0;
  for (const std::string& kind : nn::registered_layer_classes()) {
    const nn::OptionTable* table = nn::layer_options(kind);
    if (table == nullptr) continue;
    const json config = varied_config(kind, *table, &varied);
    try {
      const auto layer = build(kind, config);
      EXPECT_EQ(nn::layer_config(*layer)["config"], config) << kind;
    } catch (const Error& e) {
      ADD_FAILURE() << kind << ": " << e.what() << "\n  config: " << config.dump();
    }
  }
  EXPECT_GT(varied, 200);
}

TEST(LayerOptionsTest, EveryDeclaredBoundIsRefusedNamingLayerFieldAndBound) {
  int bounds = 0;
  for (const std::string& kind : nn::registered_layer_classes()) {
    const nn::OptionTable* table = nn::layer_options(kind);
    if (table == nullptr) continue;
    for (const nn::OptionField& f : table->fields) {
      if (!f.read) continue;
      std::vector<json> outside;
      if (f.rule.kind == nn::OptionRule::Kind::range) {
        const bool list = f.type.front() == '[', nested = f.type.rfind("[[", 0) == 0;
        const double step = f.integral ? 1 : 1e-3;
        for (double v : {f.rule.min - step, f.rule.max + step}) {
          if (!std::isfinite(v)) continue;
          const json value = f.integral ? json(static_cast<int64_t>(v)) : json(v);
          outside.push_back(nested ? json::array({json::array({value})}) : list ? json::array({value}) : value);
        }
      } else if (f.rule.kind == nn::OptionRule::Kind::choice) {
        outside.push_back("no_such_choice");
      }
      for (const json& value : outside) {
        int varied = 0;  // from a config the layer accepts, only this field out of bounds
        json config = varied_config(kind, *table, &varied);
        config[f.name] = value;
        testing::expect_error([&] { build(kind, config); }, {kind, "\"" + f.name + "\"", f.rule_text()});
        ++bounds;
      }
    }
  }
  EXPECT_GT(bounds, 100);
}

TEST(LayerOptionsTest, UnknownOptionsAreRefusedByName) {
  testing::expect_error([] { build("dense", {{"units", 4}, {"unit", 5}}); },
                        {"dense", "unknown option \"unit\"", "units, act, in_units, use_bias"});
  testing::expect_error([] { nn::Dense({.units = 0}); }, {"(dense)", "\"units\" must be an integer in [1, 2147483647]"});
  nn::Dense keyword({.units = 7, .act = "relu", .use_bias = false});
  EXPECT_EQ(keyword.options().units, 7);
  EXPECT_EQ(nn::layer_config(keyword)["config"], json({{"units", 7}, {"act", "relu"}, {"in_units", -1}, {"use_bias", false}}));
}

// docs/layers.md ends with the generated tables; STRATA_WRITE_DOCS=1 rewrites them.
TEST(LayerOptionsTest, DocsTableIsCurrent) {
  const std::string path = std::string(STRATA_TESTS_DIR) + "/../docs/layers.md";
  const std::string marker = "<!-- generated by tests/nn/test_layer_options.cpp: do not edit below -->\n";
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  const std::string doc = text.str();
  const size_t at = doc.find(marker);
  const std::string generated = nn::layer_options_markdown();
  if (std::getenv("STRATA_WRITE_DOCS") != nullptr) {
    std::ofstream(path) << (at == std::string::npos ? doc + "\n" : doc.substr(0, at)) << marker << generated;
    return;
  }
  ASSERT_NE(at, std::string::npos) << path << " lacks the generated section; run with STRATA_WRITE_DOCS=1";
  EXPECT_EQ(doc.substr(at + marker.size()), generated)
      << path << " is stale: run `STRATA_WRITE_DOCS=1 build/tests/test_nn --gtest_filter=LayerOptionsTest.DocsTableIsCurrent`";
}

}  // namespace
}  // namespace strata
