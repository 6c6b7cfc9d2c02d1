// The op conformance table under bf16 autocast (docs/mixed_precision.md): every case's float32
// output and gradients with AutocastBF16 (oneDNN's bf16, emulated where the CPU has no native bf16)
// against plain float32. The matmul and convolution families must agree within bf16 tolerance and
// must actually differ somewhere (they ran in bf16); every other op must be bit-identical, since
// autocast changes nothing else.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "ops/conformance.hpp"
#include "strata/core/autocast.hpp"
#include "strata/strata.hpp"

namespace strata::testing {
namespace {

// The ops that run matmul or convolution kernels, which autocast moves to bf16.
bool cfbf_runs_in_bf16(const std::string& op) {
  for (const char* family : {"matmul", "linear", "conv", "attention", "bilinear", "einsum"})
    if (op.find(family) != std::string::npos) return true;
  return false;
}

// The case's output and the gradients of sum(output * fixed weights), all in float32 inputs.
std::vector<std::vector<double>> cfbf_run(const OpCase& c) {
  std::vector<Tensor> in;
  for (const Tensor& t : c.inputs) {
    Tensor leaf = is_floating(t.dtype()) ? cast(t.detach(), kFloat32) : t.detach();
    if (is_floating(leaf.dtype())) leaf.requires_grad_();
    in.push_back(leaf);
  }
  const Tensor y = c.fn(in);
  std::vector<std::vector<double>> out{y.to_vector<double>()};
  if (!is_floating(y.dtype()) || !y.requires_grad()) return out;
  Generator wgen(99);
  sum(y * uniform(y.shape(), 0.5, 1.5, y.dtype(), &wgen)).backward();
  for (const Tensor& t : in)
    if (t.requires_grad()) out.push_back(t.grad().defined() ? t.grad().to_vector<double>() : std::vector<double>());
  return out;
}

TEST(ConformanceBf16Test, AutocastChangesOnlyMatmulAndConvolutionWithinBf16Tolerance) {
  setenv("STRATA_BF16_EMULATE", "1", 1);
  ASSERT_TRUE(bf16_autocast_available()) << "this CPU runs no bf16 at all (no AVX-512)";
  Generator gen(1234);
  int rounded = 0, cases = 0;
  for (auto& [group, maker] : all_case_makers()) {
    for (const OpCase& c : maker(gen)) {
      SCOPED_TRACE(c.op + " " + c.label);
      ++cases;
      const auto wide = cfbf_run(c);
      const auto mixed = [&] {
        AutocastBF16 bf16;
        return cfbf_run(c);
      }();
      ASSERT_EQ(mixed.size(), wide.size());
      bool differs = false;
      for (size_t k = 0; k < wide.size(); ++k) {
        ASSERT_EQ(mixed[k].size(), wide[k].size()) << "result " << k;
        for (size_t i = 0; i < wide[k].size(); ++i) {
          const double w = wide[k][i], m = mixed[k][i];
          if (std::isnan(w)) {
            EXPECT_TRUE(std::isnan(m)) << "result " << k << " element " << i;
            continue;
          }
          differs = differs || m != w;
          if (cfbf_runs_in_bf16(c.op)) {
            // Both operands of each product rounded (2^-8 each), sums of a few products: 2^-5.
            EXPECT_LE(std::abs(m - w), std::max(1.0, std::abs(w)) / 32) << "result " << k << " element " << i;
          } else {
            EXPECT_EQ(m, w) << "result " << k << " element " << i << ": autocast changed an op it does not cover";
          }
        }
      }
      rounded += differs;
    }
  }
  unsetenv("STRATA_BF16_EMULATE");
  RecordProperty("cases", cases);  // --gtest_output=xml shows the counts
  RecordProperty("cases_rounded_by_bf16", rounded);
  EXPECT_GT(cases, 100);
  EXPECT_GT(rounded, 5) << "the bf16 path did not run: no matmul or convolution case changed";
}

}  // namespace
}  // namespace strata::testing
