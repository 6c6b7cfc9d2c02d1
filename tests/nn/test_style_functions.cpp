// The built-in "adain" function (src/nn/style_functions.cpp): a static model of two inputs that
// combines them with ElementwiseLambda("adain") computes ops' adain, and keeps doing so after its
// architecture is written and read back with no user code registered.
#include <gtest/gtest.h>

#include "support/expect_error.hpp"
#include "strata/nn/functions.hpp"
#include "strata/ops/style.hpp"
#include "strata/strata.hpp"

namespace strata {
namespace {

TEST(StyleFunctionsTest, AdainIsABuiltInFunctionOfSavedModels) {
  ASSERT_TRUE(nn::has_function("adain"));
  const nn::Symbol content = nn::Input({-1, 4, 4, 3}, "content"), style = nn::Input({-1, 2, 6, 3}, "style");
  const nn::Symbol mixed = nn::ElementwiseLambda("adain")({content, style});
  EXPECT_EQ(mixed.shape(), (Shape{-1, 4, 4, 3}));
  nn::Model model({content, style}, {mixed}, "adain_model");
  Generator gen(3);
  const Tensor c = randn({2, 4, 4, 3}, kFloat32, &gen), s = randn({2, 2, 6, 3}, kFloat32, &gen) * 2.0 + 1.0;
  const Tensor want = adain(c, s);
  EXPECT_TRUE(allclose(model.run({c, s})[0], want, 1e-6, 1e-6));
  const auto reloaded = nn::Model::from_json(model.to_json());
  EXPECT_TRUE(allclose(reloaded->run({c, s})[0], want, 1e-6, 1e-6));
  testing::expect_error([] { nn::find_function("adain")({zeros({1, 2, 2, 3})}, {}); }, {"adain", "two inputs", "1"});
}

}  // namespace
}  // namespace strata
