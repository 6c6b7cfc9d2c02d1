// Memory-bound work: element-wise maps, a full sum, a row softmax, and the fixed cost of one
// tiny op (dispatch, allocation, autograd bookkeeping). All without grad on both sides.
#include <memory>
#include <string>

#include "cases.hpp"
#include "strata/strata.hpp"

namespace bench {
namespace {

constexpr int64_t kRows = 10'000, kCols = 1'000, kNumel = kRows * kCols;  // 10M floats
constexpr double kBytes = 4.0 * kNumel;

using StrataBinary = strata::Tensor (*)(const strata::Tensor&, const strata::Tensor&);
using StrataUnary = strata::Tensor (*)(const strata::Tensor&);

struct Inputs {
  strata::Tensor a = strata::randn({kNumel}), b = strata::randn({kNumel});
  torch::Tensor ta = to_torch(a), tb = to_torch(b);
};

// A case whose two sides compute strata_fn(inputs) and torch_fn(inputs).
template <class S, class T>
Case forward_case(std::string name, std::string what, double work, Unit unit, S strata_fn, T torch_fn) {
  Case c{std::move(name), std::move(what), work, unit};
  c.strata.run = [=] { strata::NoGradGuard g; strata_fn(); };
  c.torch.run = [=] { torch::InferenceMode g; torch_fn(); };
  c.max_diff = [=] {
    strata::NoGradGuard g;
    torch::InferenceMode tg;
    return max_rel_diff(strata_fn(), torch_fn());
  };
  return c;
}

}  // namespace

std::vector<Case> pointwise_cases() {
  auto in = std::make_shared<Inputs>();
  const std::string ew = "own element-wise loop / ATen Vectorized<float> loop";
  std::vector<Case> cases;
  cases.push_back(forward_case(
      "add 10M", ew, 3 * kBytes, Unit::gbytes, [=] { return strata::add(in->a, in->b); },
      [=] { return torch::add(in->ta, in->tb); }));
  cases.push_back(forward_case(
      "mul 10M", ew, 3 * kBytes, Unit::gbytes, [=] { return strata::mul(in->a, in->b); },
      [=] { return torch::mul(in->ta, in->tb); }));
  cases.push_back(forward_case(
      "relu 10M", ew, 2 * kBytes, Unit::gbytes, [=] { return strata::relu(in->a); },
      [=] { return torch::relu(in->ta); }));
  cases.push_back(forward_case(
      "sigmoid 10M", ew, 2 * kBytes, Unit::gbytes, [=] { return strata::sigmoid(in->a); },
      [=] { return torch::sigmoid(in->ta); }));
  cases.push_back(forward_case(
      "sum 10M -> scalar", "own reduction / ATen sum", kBytes, Unit::gbytes, [=] { return strata::sum(in->a); },
      [=] { return torch::sum(in->ta); }));
  auto a2 = in->a.reshape({kRows, kCols});
  auto ta2 = in->ta.reshape({kRows, kCols});
  cases.push_back(forward_case(
      "softmax 10k rows x 1000 (last axis)", "own row softmax / ATen vectorized softmax", 2 * kBytes, Unit::gbytes,
      [=] { return strata::softmax(a2, -1); }, [=] { return torch::softmax(ta2, -1); }));

  // Per-op overhead: 10k additions of two 4x4 tensors per call.
  const int ops = 10'000;
  auto s = strata::randn({4, 4}), t = strata::randn({4, 4});
  auto ts = to_torch(s), tt = to_torch(t);
  Case overhead{"per-op overhead: add 4x4", "strata::add / torch::add, 10k calls in a loop", double(ops),
                Unit::us_per_op};
  overhead.strata.run = [=] {
    strata::NoGradGuard g;
    for (int i = 0; i < ops; ++i) strata::add(s, t);
  };
  overhead.torch.run = [=] {
    torch::InferenceMode g;
    for (int i = 0; i < ops; ++i) torch::add(ts, tt);
  };
  overhead.max_diff = [=] { return max_rel_diff(strata::add(s, t), torch::add(ts, tt)); };
  cases.push_back(overhead);
  return cases;
}

}  // namespace bench
