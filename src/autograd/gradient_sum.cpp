#include "autograd/gradient_sum.hpp"

#include "strata/autograd/grad_mode.hpp"
#include "strata/autograd/node.hpp"
#include "strata/dispatch/elementwise.hpp"

namespace strata::autograd {

Tensor sum_gradients(const Tensor& a, const Tensor& b) {
  Tensor sum = dispatch::add(a, b);
  if (needs_grad({&a, &b}))
    record({"gradient sum"}, {a, b}, {sum}, [](const std::vector<Tensor>& g) {
      return std::vector<Tensor>{g[0], g[0]};
    });
  return sum;
}

}  // namespace strata::autograd
