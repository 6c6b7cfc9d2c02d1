#include "harness.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>

namespace bench {
namespace {

double seconds_of(const Side& s, int burst = 1) {
  s.setup();
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < burst; ++i) s.run();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / burst;
}

std::string format_time(double s) {
  char buf[32];
  if (s < 1e-3)
    std::snprintf(buf, sizeof buf, "%8.2f us", s * 1e6);
  else
    std::snprintf(buf, sizeof buf, "%8.3f ms", s * 1e3);
  return buf;
}

std::string format_rate(const Case& c, double s) {
  char buf[32];
  switch (c.unit) {
    case Unit::gflops: std::snprintf(buf, sizeof buf, "%7.1f GFLOP/s", c.work / s / 1e9); break;
    case Unit::gbytes: std::snprintf(buf, sizeof buf, "%7.1f GB/s   ", c.work / s / 1e9); break;
    case Unit::us_per_op: std::snprintf(buf, sizeof buf, "%7.3f us/op  ", s / c.work * 1e6); break;
    case Unit::samples_per_s: std::snprintf(buf, sizeof buf, "%7.0f samples/s", c.work / s); break;
  }
  return buf;
}

}  // namespace

Result run(const Case& c, double budget_s) {
  Result r;
  // Warm-up: first calls build oneDNN primitives, fill allocator caches, fault pages in.
  double ts = 0, tt = 0;
  for (int i = 0; i < 3; ++i) {
    ts = seconds_of(c.strata);
    tt = seconds_of(c.torch);
  }
  r.reps = std::clamp(static_cast<int>(budget_s / std::max(ts, tt)), 5, 200);
  r.strata_s = r.torch_s = INFINITY;
  for (int i = 0; i < r.reps; ++i) {
    r.strata_s = std::min(r.strata_s, seconds_of(c.strata, c.burst));
    r.torch_s = std::min(r.torch_s, seconds_of(c.torch, c.burst));
  }
  if (c.max_diff) r.max_diff = c.max_diff();
  return r;
}

void print_header() {
  std::printf("%-36s | %11s %-15s | %11s %-15s | %6s | %7s | %s\n", "case", "strata", "  rate", "libtorch",
              "  rate", "ratio", "rel.err", "what runs (strata / libtorch)");
  std::printf("%s\n", std::string(160, '-').c_str());
}

void print_row(const Case& c, const Result& r) {
  char diff[16] = "      -";
  if (r.max_diff >= 0) std::snprintf(diff, sizeof diff, "%7.0e", r.max_diff);
  std::printf("%-36s | %s %s | %s %s | %6.2f | %s | %s\n", c.name.c_str(), format_time(r.strata_s).c_str(),
              format_rate(c, r.strata_s).c_str(), format_time(r.torch_s).c_str(), format_rate(c, r.torch_s).c_str(),
              r.torch_s / r.strata_s, diff, c.what.c_str());
  std::fflush(stdout);
}

void print_footer() {
  std::printf("%s\n", std::string(160, '-').c_str());
  std::printf("ratio = libtorch time / strata time (> 1: Strata is faster). Times are the best of the reps after\n"
              "3 warm-up calls, strata and libtorch interleaved (batch-1 latency: bursts of 20 calls). rel.err = max|strata - libtorch| / max(1, max|libtorch|)\n"
              "over the outputs (MLP step: the difference of the last losses).\n");
}

torch::Tensor to_torch(const strata::Tensor& t) {
  strata::Tensor c = t.contiguous();
  std::vector<int64_t> sizes = c.shape().vec();
  auto options = torch::TensorOptions().dtype(c.dtype() == strata::kInt64 ? torch::kInt64 : torch::kFloat32);
  STRATA_CHECK(c.dtype() == strata::kInt64 || c.dtype() == strata::kFloat32, "bench: to_torch takes float32/int64");
  return torch::from_blob(c.raw_data(), sizes, options).clone();
}

strata::Tensor to_strata(const torch::Tensor& t) {
  torch::Tensor c = t.contiguous();
  STRATA_CHECK(c.scalar_type() == torch::kFloat32, "bench: to_strata takes float32");
  strata::Tensor s = strata::Tensor::empty(strata::Shape(c.sizes().begin(), c.sizes().end()));
  std::memcpy(s.raw_data(), c.data_ptr(), s.nbytes());
  return s;
}

double max_rel_diff(const strata::Tensor& a, const torch::Tensor& b) {
  torch::Tensor ta = to_torch(a.detach());
  torch::Tensor tb = b.detach().to(torch::kFloat32).reshape(ta.sizes());
  double scale = std::max(1.0, tb.abs().max().item<double>());
  return (ta - tb).abs().max().item<double>() / scale;
}

}  // namespace bench
