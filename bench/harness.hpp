// The benchmark harness: a Case is one piece of work written twice (Strata, libtorch); run()
// times both back to back, interleaved rep by rep so that both see the same machine load, and
// keeps the best time of each after a warm-up.
#pragma once
#include <torch/torch.h>

#include <functional>
#include <string>
#include <vector>

#include "strata/core/tensor.hpp"

namespace bench {

enum class Unit { gflops, gbytes, us_per_op, samples_per_s };

// One side of a case: `setup` runs untimed before every timed `run` (e.g. the forward pass
// whose backward is being timed).
struct Side {
  std::function<void()> run;
  std::function<void()> setup = [] {};
};

struct Case {
  std::string name;
  std::string what;      // what each side actually runs
  double work = 0;       // per call: flops (gflops), bytes moved (gbytes), ops (us_per_op) or samples
  Unit unit = Unit::gflops;
  Side strata, torch;
  // Calls timed back to back per sample (the time is their mean). Latency cases use several: a
  // model served call after call keeps its weights in cache, which one call squeezed between
  // the other library's calls (whose own weights evict them) does not show.
  int burst = 1;
  // How far the outputs differ (max_rel_diff), for the table; empty when not compared.
  std::function<double()> max_diff;
};

struct Result {
  double strata_s = 0, torch_s = 0;  // best time per call
  int reps = 0;
  double max_diff = -1;              // < 0: not compared
};

// Times a case: warm-up, then repetitions until about `budget_s` per side is spent.
Result run(const Case& c, double budget_s);

void print_header();
void print_row(const Case& c, const Result& r);
void print_footer();

// The same values in the other library (copies; shapes as given).
torch::Tensor to_torch(const strata::Tensor& t);
strata::Tensor to_strata(const torch::Tensor& t);
// max|a - b| / max(1, max|b|): float32 rounding shows as ~1e-6, a wrong result as ~1.
double max_rel_diff(const strata::Tensor& a, const torch::Tensor& b);

}  // namespace bench
