#include "strata/nn/lambda.hpp"

#include "strata/ops/shape.hpp"

namespace strata::nn {

Lambda::Lambda(std::function<Tensor(const Tensor&)> fn, std::string name)
    : Layer("lambda", std::move(name)), fn_([f = std::move(fn)](const Tensor& x, const std::vector<Tensor>&) {
        return f(x);
      }) {}

Lambda::Lambda(Fn fn, std::vector<std::pair<std::string, Tensor>> weights, std::string name)
    : Layer("lambda", std::move(name)), fn_(std::move(fn)), initial_(std::move(weights)) {}

void Lambda::build(const Shape&) {
  for (auto& [n, t] : initial_) {
    Tensor init = clone(t.detach());
    weights_.push_back(add_weight(n, init.shape(), [init](const Shape&, Generator*) { return clone(init); }));
  }
}

Tensor Lambda::forward(const Tensor& x) { return fn_(x, weights_); }

}  // namespace strata::nn
