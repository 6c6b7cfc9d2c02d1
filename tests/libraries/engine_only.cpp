// A program that uses only tensors and layers, linked against Strata's engine library alone
// (cmake/libraries.cmake): check_needed.cmake runs it and reads what it loads.
#include <cstdio>
#include <memory>

#include "strata/core/factory.hpp"
#include "strata/nn/layers/dense.hpp"
#include "strata/nn/sequential.hpp"
#include "strata/ops/reduce.hpp"

int main() {
  using namespace strata;
  nn::Sequential net({std::make_shared<nn::Dense>(3, nn::relu), std::make_shared<nn::Dense>(1)});
  const Tensor x = ones({2, 4});
  const Tensor y = sum(net(x));
  y.backward();
  std::printf("engine only: output %s, %zu weight tensors\n", net(x).shape().str().c_str(),
              net.trainable_weights().size());
}
