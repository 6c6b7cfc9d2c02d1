#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "ops/conformance.hpp"

namespace strata::testing {
namespace {

std::vector<OpCase> every_case() {
  std::vector<OpCase> cases;
  Generator gen(1234);
  for (auto& [group, maker] : all_case_makers()) {
    try {
      for (auto& c : maker(gen)) cases.push_back(std::move(c));
    } catch (const std::exception& e) {
      ADD_FAILURE() << "conformance group '" << group << "' failed to make its cases: " << e.what();
    }
  }
  return cases;
}

void check_case(const OpCase& c) {
  SCOPED_TRACE(c.op + " " + c.label);
  std::vector<Tensor> inputs;
  for (const Tensor& t : c.inputs) {
    Tensor leaf = t.detach();
    if (is_floating(leaf.dtype())) leaf.requires_grad_();
    inputs.push_back(leaf);
  }
  // Weight the outputs with fixed random numbers so each output element's gradient differs.
  Tensor probe_out;
  {
    NoGradGuard no_grad;
    probe_out = c.fn(inputs);
  }
  if (!is_floating(probe_out.dtype())) return;  // integer outputs (indices) carry no gradient
  Generator wgen(99);
  Tensor weights = uniform(probe_out.shape(), 0.5, 1.5, kFloat64, &wgen);
  auto weighted = [&](const std::vector<Tensor>& in) { return cast(c.fn(in), kFloat64) * weights; };
  auto result = autograd::gradcheck(weighted, inputs, c.eps, c.tolerance);
  EXPECT_TRUE(result.ok) << result.message;
}

}  // namespace

TEST(Conformance, GradientsMatchFiniteDifferences) {
  auto cases = every_case();
  ASSERT_FALSE(cases.empty());
  for (const auto& c : cases) {
    try {
      check_case(c);
    } catch (const std::exception& e) {
      ADD_FAILURE() << c.op << " " << c.label << ": " << e.what();
    }
  }
}

TEST(Conformance, EveryRegisteredOpHasACase) {
  std::set<std::string> covered;
  for (const auto& c : every_case()) covered.insert(c.op);
  for (const auto& op : ops::registered_ops())
    EXPECT_TRUE(covered.count(op)) << "op '" << op << "' is registered but has no conformance case";
}

}  // namespace strata::testing
