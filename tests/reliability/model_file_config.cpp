// Issue 13.4: whole-model files whose layer configs ask for absurd sizes. Dense units near 2^62
// segfaulted, 2^63-1 looped in the allocator, 2^31 asked for 64 GiB from a 1 KB file, Conv2d
// groups 0 divided by zero, and configs nested a few thousand levels copied themselves until
// memory ran out. Each is now an error naming the layer and the field, before any allocation.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <string>

#include "strata/core/factory.hpp"
#include "strata/core/limits.hpp"
#include "strata/io/safetensors.hpp"
#include "strata/nn/layer_config.hpp"
#include "strata/nn/layers/conv.hpp"
#include "strata/nn/layers/dense.hpp"
#include "strata/nn/model.hpp"
#include "temp_hub.hpp"

namespace strata::reliability {
namespace {

using nlohmann::json;

// The architecture of Input [-1, 8] -> Dense(4), as a saved file holds it.
json dense_architecture() {
  auto x = nn::Input({-1, 8});
  nn::Model net(x, nn::Dense(4, {}, "fc")(x), "net");
  return json::parse(net.to_json());
}

json& first_layer_config(json& architecture) { return architecture["model"]["config"]["layers"][0]["config"]; }

// Runs fn and checks it throws an Error (LimitError when `limit`) mentioning every part.
void expect_refusal(const std::function<void()>& fn, const std::vector<std::string>& parts, bool limit = false) {
  try {
    fn();
    ADD_FAILURE() << "expected a refusal";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_EQ(dynamic_cast<const LimitError*>(&e) != nullptr, limit) << what;
    for (const auto& p : parts) EXPECT_NE(what.find(p), std::string::npos) << "'" << p << "' not in: " << what;
  }
}

TEST(ModelFileConfig, DenseUnitsOutOfRangeNameTheLayerAndTheField) {
  for (const uint64_t units : {uint64_t{1} << 62, uint64_t{INT64_MAX}, uint64_t{1} << 31, uint64_t{UINT64_MAX}}) {
    json a = dense_architecture();
    first_layer_config(a)["units"] = units;
    expect_refusal([&] { nn::Model::from_json(a.dump()); }, {"'fc'", "dense", "\"units\"", std::to_string(units)});
  }
  json a = dense_architecture();
  first_layer_config(a)["units"] = 0;
  expect_refusal([&] { nn::Model::from_json(a.dump()); }, {"'fc'", "\"units\"", "got 0"});
  a = dense_architecture();
  first_layer_config(a)["in_units"] = -5;
  expect_refusal([&] { nn::Model::from_json(a.dump()); }, {"'fc'", "\"in_units\"", "-5"});
}

// In range field by field, but the weight they make together is too big: refused before it is made.
TEST(ModelFileConfig, WeightBytesAreCheckedAgainstTheLimitWithoutOverflow) {
  json a = dense_architecture();
  first_layer_config(a)["units"] = INT32_MAX;  // W is [8, 2^31 - 1]: 64 GiB
  expect_refusal([&] { nn::Model::from_json(a.dump()); }, {"weight fc/W of shape [8, 2147483647]", "max_tensor_bytes"}, /*limit=*/true);
  // Input sizes are checked as well: the batch-1 probe shape inference may make real.
  a = dense_architecture();
  a["model"]["config"]["inputs"][0]["shape"] = {-1, INT32_MAX, 1 << 20, 8};  // 2^56 bytes
  expect_refusal([&] { nn::Model::from_json(a.dump()); }, {"input", "max_tensor_bytes"}, /*limit=*/true);
  a["model"]["config"]["inputs"][0]["shape"] = {-1, INT32_MAX, INT32_MAX, INT32_MAX, 8};  // past 2^64
  expect_refusal([&] { nn::Model::from_json(a.dump()); }, {"input", "more than 2^64", "max_tensor_bytes"}, true);
  // A layer built in code is held to the same bound (and to overflow-safe arithmetic).
  ScopedLimit small(&Limits::max_tensor_bytes, 1024);
  nn::Dense big(1000, {}, "big");
  expect_refusal([&] { big(zeros({1, 8})); }, {"weight big/W of shape [8, 1000]", "max_tensor_bytes = 1024"}, true);
}

// A 1 KB file cannot make the loader allocate what its own tensors could not hold.
using ModelFileLoad = TempHub;
TEST_F(ModelFileLoad, WeightsMayNotOutgrowTheFile) {
  json a = dense_architecture();
  first_layer_config(a)["units"] = 100'000;  // 3.2 MB of weights, in range and under the limit
  const std::string path = (dir_ / "small.safetensors").string();
  io::save_safetensors(path, {{"fc/W", zeros({8, 4})}, {"fc/b", zeros({4})}}, {{"strata.model", a.dump()}});
  expect_refusal([&] { nn::Model::load(path); }, {path, "weight fc/W of shape [8, 100000]", "144 bytes of tensors", "lacks weights"}, /*limit=*/true);
}

TEST(ModelFileConfig, ConvGroupsStridesAndDilationsMustBePositive) {
  auto x = nn::Input({-1, 8, 8, 4});
  nn::Model net(x, nn::Conv2d(4, {3, 3}, {}, nn::Conv2d::same_padding(), "conv")(x), "net");
  for (const char* field : {"groups", "stride", "dilation"}) {
    json a = json::parse(net.to_json());
    json& options = first_layer_config(a)["options"];
    options[field] = options[field].is_array() ? json{1, 0} : json(0);
    // "options": "groups" must be ... (the nested field named within its option).
    expect_refusal([&] { nn::Model::from_json(a.dump()); }, {"'conv'", "options", std::string("\"") + field + "\""});
  }
  // Unchanged, the saved architecture loads.
  EXPECT_NO_THROW(nn::Model::from_json(net.to_json()));
}

// Layers nested in layers: within the JSON depth limit they load; a few thousand levels are
// refused by the depth check before any layer config is read (each level used to copy the rest:
// memory grew as the square of the depth, past 4 GB at 6,000 levels).
TEST(ModelFileConfig, NestedLayerConfigsAreBoundedByTheJsonDepth) {
  const auto nested = [](int levels) {
    // Written as text: building it as a json value would copy the tree once per level.
    std::string layer = R"({"class": "dense", "name": "fc", "config": {"units": 2, "act": "", "in_units": 8, "use_bias": true}})";
    std::string opening, closing;
    for (int i = 0; i < levels; ++i) {
      opening += R"({"class": "sequential", "name": "s)" + std::to_string(i) + R"(", "config": {"layers": [)";
      closing += "]}}";
    }
    std::string a = dense_architecture().dump();
    const std::string dense = dense_architecture()["model"]["config"]["layers"][0].dump();
    return a.replace(a.find(dense), dense.size(), opening + layer + closing);
  };
  const std::shared_ptr<nn::Model> model = nn::Model::from_json(nested(20));
  EXPECT_EQ(model->count_params(), 8 * 2 + 2);
  expect_refusal([&] { nn::Model::from_json(nested(6000)); }, {"model architecture", "max_json_depth"}, true);
}

}  // namespace
}  // namespace strata::reliability
