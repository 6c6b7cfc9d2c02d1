#include "strata/nn/lambda.hpp"

#include "strata/nn/layer_config.hpp"

#include "strata/nn/functions.hpp"
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

using nlohmann::json;


Lambda::Lambda(const std::string& function, std::vector<std::pair<std::string, Tensor>> weights, std::string name)
    : Layer("lambda", std::move(name)), function_(function), initial_(std::move(weights)) {
  NamedFn f = find_function(function);
  fn_ = [f](const Tensor& x, const std::vector<Tensor>& w) { return f({x}, w); };
}

void Lambda::get_config(json& c) const {
  c = {{"function", lambda_function_name(function_, *this)}, {"weights", lambda_weights_config(initial_)}};
}

STRATA_LAYER_CLASS("lambda", [](const json& c, const std::string& name) {
  return std::make_shared<Lambda>(c.at("function").get<std::string>(), lambda_weights_from(c.at("weights")), name);
});

}  // namespace strata::nn
