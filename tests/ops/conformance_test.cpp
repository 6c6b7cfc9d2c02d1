#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "ops/conformance.hpp"

namespace strata::testing {

int add_cases(const char* group, CaseMaker maker) {
  const_cast<std::vector<std::pair<std::string, CaseMaker>>&>(all_case_makers()).emplace_back(group, std::move(maker));
  return 0;
}

const std::vector<std::pair<std::string, CaseMaker>>& all_case_makers() {
  static std::vector<std::pair<std::string, CaseMaker>> makers;
  return makers;
}

Tensor rand64(Generator& gen, const Shape& shape, double low, double high) {
  return uniform(shape, low, high, kFloat64, &gen);
}

Shape random_shape(Generator& gen, int max_dims, int64_t max_size) {
  std::uniform_int_distribution<int> dims(1, max_dims);
  std::uniform_int_distribution<int64_t> size(1, max_size);
  Shape s;
  for (int d = dims(gen.engine()); d > 0; --d) s.push_back(size(gen.engine()));
  return s;
}

Tensor noncontiguous64(Generator& gen, const Shape& shape, double low, double high) {
  if (shape.size() < 2) return slice(rand64(gen, {shape.numel() * 2}, low, high), 0, 0, shape.numel() * 2, 2);
  Shape swapped = shape;
  std::swap(swapped[0], swapped[1]);
  return transpose(rand64(gen, swapped, low, high), 0, 1);
}

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
