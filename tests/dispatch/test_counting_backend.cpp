// A backend registered from a test (counting_backend.hpp) runs the op conformance table and a
// training step with the CPU's results: a new backend needs no change outside its own folder.
#include <gtest/gtest.h>

#include <set>

#include "dispatch/counting_backend.hpp"
#include "dispatch/device_training.hpp"
#include "ops/conformance_runs.hpp"
#include "strata/strata.hpp"

namespace strata::testing {
namespace {

class CountingBackendTest : public ::testing::Test {
 protected:
  void SetUp() override {
    CountingBackend::install();
    CountingBackend::calls().clear();
  }
};

TEST_F(CountingBackendTest, RunsTheConformanceTableWithTheCpusResults) {
  Generator gen(1234);
  int ran = 0;
  std::set<std::string> ops_run;
  for (auto& [group, maker] : all_case_makers()) {
    for (const OpCase& c : maker(gen)) {
      SCOPED_TRACE(c.op + " " + c.label);
      const CaseRun cpu = run_case(c, kCPU);
      const CaseRun counted = run_case(c, kCounting);
      EXPECT_EQ(counted.output, cpu.output);
      EXPECT_EQ(counted.grads, cpu.grads);
      ops_run.insert(c.op);
      ++ran;
    }
  }
  EXPECT_GT(ran, 100);
  std::set<std::string> table;
  for (const ops::OpInfo& op : ops::op_table) table.insert(op.name);
  table.insert(index_result_ops().begin(), index_result_ops().end());
  EXPECT_EQ(ops_run, table);
  // The work went through this backend's rows of the tables, family by family.
  for (const char* family : {"unary", "binary", "reduce", "matmul3d", "conv_forward", "conv_backward_data",
                             "conv_backward_weights", "pool_forward", "pool_backward", "softmax_forward",
                             "softmax_backward", "batch_norm_apply", "layer_norm_forward", "take_axes",
                             "gather_along", "scatter_add_along", "sort_along", "pointwise_loss",
                             "cross_entropy_forward", "nll_forward", "dropout_apply", "lstm_cell_forward",
                             "lstm_cell_backward", "gru_cell_forward", "gru_cell_backward",
                             "farthest_point_sample", "knn", "ball_query"})
    EXPECT_GT(CountingBackend::calls()[family], 0) << family;
}

TEST_F(CountingBackendTest, TrainsAsTheCpuDoes) {
  const auto on_cpu = adam_steps_on(kCPU, false);
  EXPECT_EQ(adam_steps_on(kCounting, false), on_cpu);
  EXPECT_GT(CountingBackend::calls()["adam_step"], 0);
  EXPECT_GT(CountingBackend::calls()["cross_entropy_backward"], 0);
  // Moving a model between steps takes its weights, gradients and optimizer state along.
  EXPECT_EQ(adam_steps_on(kCounting, true), on_cpu);
}

TEST_F(CountingBackendTest, HostReadsCopyThroughTheAllocatorWhenTheHostCannotRead) {
  CountingBackend::set_host_accessible(false);
  const int64_t before = CountingBackend::copied_bytes();
  const Tensor x = arange(6, {kFloat32, kCounting});  // made on the host, copied in
  EXPECT_EQ(x.device(), kCounting);
  EXPECT_EQ(x.to_vector<float>(), std::vector<float>({0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(x.reshape({2, 3}).transpose(0, 1).to_vector<float>(), std::vector<float>({0, 3, 1, 4, 2, 5}));
  EXPECT_EQ(x.narrow(0, 4, 1).item<float>(), 4.0f);
  EXPECT_EQ(x.to(kCPU).to_vector<float>(), std::vector<float>({0, 1, 2, 3, 4, 5}));
  EXPECT_GE(CountingBackend::copied_bytes() - before, 4 * 24);
  CountingBackend::set_host_accessible(true);
}

TEST_F(CountingBackendTest, GradientsCrossDevicesBack) {
  const Tensor x = tensor({1.0f, -2.0f, 3.0f}).requires_grad_();
  const Tensor y = x.to(kCounting) * x.to(kCounting);
  EXPECT_EQ(y.device(), kCounting);
  sum(y).backward();
  EXPECT_EQ(x.grad().device(), kCPU);
  EXPECT_EQ(x.grad().to_vector<float>(), std::vector<float>({2.0f, -4.0f, 6.0f}));
}

TEST_F(CountingBackendTest, FactoriesMakeAndKeepTheirDevice) {
  const Tensor z = zeros({2, 3}, kCounting);
  EXPECT_EQ(z.device(), kCounting);
  EXPECT_EQ(z.dtype(), kFloat32);
  EXPECT_EQ(ones_like(z).device(), kCounting);
  EXPECT_EQ(full_like(z, 2).to_vector<float>(), std::vector<float>(6, 2.0f));
  EXPECT_EQ(scalar_tensor(1, {kInt64, kCounting}).dtype(), kInt64);
  EXPECT_EQ(eye(2, -1, kCounting).to_vector<float>(), std::vector<float>({1, 0, 0, 1}));
  Generator a(3), b(3);
  EXPECT_EQ(randn({4}, kCounting, &a).to_vector<float>(), randn({4}, kCPU, &b).to_vector<float>());
}

}  // namespace
}  // namespace strata::testing
