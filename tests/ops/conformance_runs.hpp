// Running a conformance case (ops/conformance.hpp) on a device and bringing its results back:
// how a backend's results are compared with the CPU's (tests/dispatch, tests/cuda).
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "ops/conformance.hpp"
#include "strata/strata.hpp"

namespace strata::testing {

// The case's inputs copied to `device`, floating ones as leaves requiring grad.
inline std::vector<Tensor> leaves_on(const std::vector<Tensor>& inputs, Device device) {
  std::vector<Tensor> out;
  for (const Tensor& t : inputs) {
    Tensor leaf = t.detach().to(device);
    if (is_floating(leaf.dtype())) leaf.requires_grad_();
    out.push_back(leaf);
  }
  return out;
}

// The case's output and the gradients of sum(output * weights) on `device`, brought to the host.
struct CaseRun {
  std::vector<double> output;
  std::vector<std::vector<double>> grads;
};
inline CaseRun run_case(const OpCase& c, Device device) {
  std::vector<Tensor> in = leaves_on(c.inputs, device);
  Tensor y = c.fn(in);
  EXPECT_EQ(y.device(), device) << c.op << " " << c.label;
  CaseRun run{y.to_vector<double>(), {}};
  if (!is_floating(y.dtype()) || !y.requires_grad()) return run;
  Generator wgen(99);
  const Tensor weights = uniform(y.shape(), 0.5, 1.5, {y.dtype(), device}, &wgen);
  sum(y * weights).backward();
  for (const Tensor& t : in) {
    EXPECT_TRUE(!t.grad().defined() || t.grad().device() == device) << c.op << " " << c.label;
    run.grads.push_back(t.grad().defined() ? t.grad().to_vector<double>() : std::vector<double>());
  }
  return run;
}

// Each value of `got` within `tolerance` of `want`'s, relative to max(1, |want|).
inline void expect_values_near(const std::vector<double>& got, const std::vector<double>& want, double tolerance,
                               const char* what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < want.size(); ++i) {
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << what << " element " << i;
      continue;
    }
    EXPECT_LE(std::abs(got[i] - want[i]), tolerance * std::max(1.0, std::abs(want[i])))
        << what << " element " << i << ": got " << got[i] << ", want " << want[i];
  }
}

inline void expect_runs_near(const CaseRun& got, const CaseRun& want, double tolerance) {
  expect_values_near(got.output, want.output, tolerance, "output");
  ASSERT_EQ(got.grads.size(), want.grads.size());
  for (size_t i = 0; i < want.grads.size(); ++i) expect_values_near(got.grads[i], want.grads[i], tolerance, "gradient");
}

// Every conformance case of `op` run on `device` and on the CPU, compared within `tolerance`;
// returns how many cases there were.
inline int expect_op_matches_cpu(const std::string& op, Device device, double tolerance) {
  Generator gen(1234);
  int ran = 0;
  for (auto& [group, maker] : all_case_makers()) {
    for (const OpCase& c : maker(gen)) {
      if (c.op != op) continue;
      SCOPED_TRACE(c.op + " " + c.label);
      expect_runs_near(run_case(c, device), run_case(c, kCPU), tolerance);
      ++ran;
    }
  }
  return ran;
}

// The names of the ops the table covers: the op table's (strata/ops/registry.hpp) and the
// index-result ops (conformance.hpp), for a test per op.
inline std::vector<std::string> conformance_op_names() {
  std::vector<std::string> names;
  for (const ops::OpInfo& op : ops::op_table) names.push_back(op.name);
  for (const std::string& op : index_result_ops()) names.push_back(op);
  return names;
}

}  // namespace strata::testing
