// A program outside Strata's tree, built by tests/install against an installed Strata (with
// find_package and with pkg-config): a tensor, a matmul and a backward pass; then whether the
// CUDA device is there, or why not (docs/cuda.md: the backend is loaded from libstrata's folder).
#include <cstdio>
#include <vector>

#include <strata/core/allocator.hpp>
#include <strata/core/factory.hpp>
#include <strata/ops/linalg.hpp>
#include <strata/ops/reduce.hpp>
#include <strata/version.hpp>

int main() {
  using namespace strata;
  Tensor a = from_vector<float>({1, 2, 3, 4}, {2, 2});
  a.requires_grad_();
  const Tensor b = from_vector<float>({5, 6, 7, 8}, {2, 2});
  const Tensor y = sum(matmul(a, b));  // [[19, 22], [43, 50]] summed: 134
  y.backward();
  const std::vector<float> g = a.grad().to_vector<float>();  // ones(2, 2) * b^T: rows of b summed
  std::printf("strata %s: sum %g, grad %g %g %g %g\n", kVersion, y.item<double>(), g[0], g[1], g[2], g[3]);
  const bool gpu = device_available(DeviceType::CUDA);
  std::printf("cuda: %s\n", gpu ? "available" : device_unavailable_reason(DeviceType::CUDA).c_str());
}
