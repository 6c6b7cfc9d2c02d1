// The conformance matrix: every op of the table (strata/ops/registry.hpp) x every mode x every
// backend, one CTest test each (ops_conformance/Conformance.Op/exp_gradient_cpu, ...).
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "ops/conformance.hpp"

namespace strata::testing {
namespace {

// A backend the table runs on: `place` moves a case's input there. A new backend is one line in
// `backends`; its results are checked by the same modes as the CPU's.
struct Backend {
  const char* name;
  Tensor (*place)(const Tensor&);
};
const Backend backends[] = {
    {"cpu", [](const Tensor& t) { return t; }},
};

enum class Mode { gradient, second_order, float32_forward };
const std::pair<Mode, const char*> modes[] = {
    {Mode::gradient, "gradient"}, {Mode::second_order, "second_order"}, {Mode::float32_forward, "float32_forward"}};

struct Cell {
  const ops::OpInfo* op;
  Mode mode;
  const char* mode_name;
  const Backend* backend;
};

const std::vector<OpCase>& every_case() {
  static const std::vector<OpCase> cases = [] {
    std::vector<OpCase> all;
    Generator gen(1234);
    for (auto& [group, maker] : all_case_makers()) {
      try {
        for (auto& c : maker(gen)) all.push_back(std::move(c));
      } catch (const std::exception& e) {
        ADD_FAILURE() << "conformance group '" << group << "' failed to make its cases: " << e.what();
      }
    }
    return all;
  }();
  return cases;
}

// The case's inputs on the backend, floating ones as leaves requiring grad.
std::vector<Tensor> leaves_of(const OpCase& c, const Backend& backend, DType floating = kFloat64) {
  std::vector<Tensor> inputs;
  for (const Tensor& t : c.inputs) {
    Tensor leaf = is_floating(t.dtype()) ? cast(t.detach(), floating) : t.detach();
    leaf = backend.place(leaf);
    if (is_floating(leaf.dtype())) leaf.requires_grad_();
    inputs.push_back(leaf);
  }
  return inputs;
}

Tensor output_of(const OpCase& c, const std::vector<Tensor>& inputs) {
  NoGradGuard no_grad;
  return c.fn(inputs);
}

// The output weighted with fixed random numbers, so each output element's gradient differs.
std::function<Tensor(const std::vector<Tensor>&)> weighted(const OpCase& c, const Shape& out_shape) {
  Generator wgen(99);
  Tensor weights = uniform(out_shape, 0.5, 1.5, kFloat64, &wgen);
  auto fn = c.fn;
  return [fn, weights](const std::vector<Tensor>& in) { return cast(fn(in), kFloat64) * weights; };
}

void check_gradient(const OpCase& c, const Backend& backend) {
  auto inputs = leaves_of(c, backend);
  Tensor out = output_of(c, inputs);
  if (!is_floating(out.dtype())) return;  // integer outputs (indices) carry no gradient
  auto result = autograd::gradcheck(weighted(c, out.shape()), inputs, c.eps, c.tolerance);
  EXPECT_TRUE(result.ok) << result.message;
}

void check_second_order(const OpCase& c, const ops::OpInfo& op, const Backend& backend) {
  if (!c.second_order) return;
  auto inputs = leaves_of(c, backend);
  Tensor out = output_of(c, inputs);
  if (!is_floating(out.dtype())) return;
  if (op.order == ops::BackwardOrder::any) {
    // Finite differences of first-order gradients: a looser bound than the first order's.
    auto result = autograd::gradgradcheck(weighted(c, out.shape()), inputs, c.eps, c.tolerance * 10);
    EXPECT_TRUE(result.ok) << result.message;
    return;
  }
  // A fused backward without a backward of its own: the second backward must refuse, naming the op.
  std::vector<Tensor> wrt;
  for (const Tensor& t : inputs)
    if (t.requires_grad()) wrt.push_back(t);
  auto grads = autograd::grad({sum(weighted(c, out.shape())(inputs))}, wrt, {}, false, /*create_graph=*/true);
  Tensor total = zeros({}, kFloat64);
  for (const Tensor& g : grads) total = total + sum(cast(g, kFloat64));
  ASSERT_TRUE(total.requires_grad()) << "the gradient of " << op.name << " carries no history under create_graph";
  try {
    total.backward();
    ADD_FAILURE() << op.name << " is marked first-order only, but a second backward went through";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(op.name), std::string::npos) << "the error does not name the op: " << e.what();
  }
}

// The float32 fast paths against the same case in float64.
void check_float32_forward(const OpCase& c, const Backend& backend) {
  Tensor want = output_of(c, leaves_of(c, backend));
  Tensor got = output_of(c, leaves_of(c, backend, kFloat32));
  ASSERT_EQ(got.shape(), want.shape());
  if (!is_floating(want.dtype())) return;  // indices: equal values can tie differently in float32
  auto w = cast(want, kFloat64).to_vector<double>(), g = cast(got, kFloat64).to_vector<double>();
  for (size_t i = 0; i < w.size(); ++i)
    ASSERT_LE(std::abs(g[i] - w[i]) / std::max(1.0, std::abs(w[i])), c.float32_tolerance)
        << "element " << i << ": float32 " << g[i] << ", float64 " << w[i];
}

// gtest prints a failing cell's parameter: its test name says it already.
void PrintTo(const Cell& cell, std::ostream* os) {
  *os << cell.op->name << " " << cell.mode_name << " on " << cell.backend->name;
}

class Conformance : public ::testing::TestWithParam<Cell> {};

TEST_P(Conformance, Op) {
  const Cell& cell = GetParam();
  int covered = 0;
  for (const OpCase& c : every_case()) {
    if (c.op != cell.op->name) continue;
    ++covered;
    SCOPED_TRACE(c.op + " " + c.label);
    try {
      if (cell.mode == Mode::gradient) check_gradient(c, *cell.backend);
      else if (cell.mode == Mode::second_order) check_second_order(c, *cell.op, *cell.backend);
      else check_float32_forward(c, *cell.backend);
    } catch (const std::exception& e) {
      ADD_FAILURE() << e.what();
    }
  }
  EXPECT_GT(covered, 0) << "op '" << cell.op->name << "' is in the op table but has no conformance case";
}

std::vector<Cell> all_cells() {
  std::vector<Cell> cells;
  for (const ops::OpInfo& op : ops::op_table)
    for (auto [mode, mode_name] : modes)
      for (const Backend& backend : backends) cells.push_back({&op, mode, mode_name, &backend});
  return cells;
}

INSTANTIATE_TEST_SUITE_P(Ops, Conformance, ::testing::ValuesIn(all_cells()), [](const auto& info) {
  return std::string(info.param.op->name) + "_" + info.param.mode_name + "_" + info.param.backend->name;
});

TEST(ConformanceTable, EveryCaseNamesAnOpOfTheTable) {
  std::set<std::string> names(index_result_ops().begin(), index_result_ops().end());
  for (const ops::OpInfo& op : ops::op_table) names.insert(op.name);
  for (const OpCase& c : every_case()) EXPECT_TRUE(names.count(c.op)) << "case for unknown op '" << c.op << "'";
}

// The ops with index results have cases, whose float32 results have float64's shapes (their
// values are compared across backends by tests/dispatch and tests/cuda).
TEST(ConformanceTable, IndexResultOpsHaveCasesWithFloat32Shapes) {
  for (const std::string& op : index_result_ops()) {
    int covered = 0;
    for (const OpCase& c : every_case()) {
      if (c.op != op) continue;
      ++covered;
      SCOPED_TRACE(c.op + " " + c.label);
      check_float32_forward(c, backends[0]);
    }
    EXPECT_GT(covered, 0) << "op '" << op << "' has no conformance case";
  }
}

}  // namespace
}  // namespace strata::testing
