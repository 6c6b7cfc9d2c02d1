#include "strata/nn/lambda.hpp"

#include "strata/nn/option_table.hpp"

#include "strata/nn/functions.hpp"
#include "strata/ops/shape.hpp"
#include "weight_budget.hpp"

namespace strata::nn {

Lambda::Lambda(Options options, std::string name) : Layer("lambda", std::move(name)), options_(std::move(options)) {
  check_options(options_, *this);
  expect(!options_.function.is_code, "has no function: give a registered function's name or a C++ function");
  NamedFn f = find_function(options_.function.name);
  fn_ = [f](const Tensor& x, const std::vector<Tensor>& w) { return f({x}, w); };
}

Lambda::Lambda(std::function<Tensor(const Tensor&)> fn, std::string name)
    : Layer("lambda", std::move(name)),
      fn_([f = std::move(fn)](const Tensor& x, const std::vector<Tensor>&) { return f(x); }),
      options_{.function = FunctionName::code()} {
  check_options(options_, *this);
}

Lambda::Lambda(Fn fn, std::vector<std::pair<std::string, Tensor>> weights, std::string name)
    : Layer("lambda", std::move(name)), fn_(std::move(fn)),
      options_{.function = FunctionName::code(), .weights = std::move(weights)} {
  check_options(options_, *this);
}

void Lambda::build(const Shape&) {
  for (auto& [n, t] : options_.weights) {
    Tensor init = clone(t.detach());
    const detail::WeightDType as_made(init.dtype());  // charged as what it is, not as float32
    // Integer and boolean weights (an imported ONNX graph's int64 constants) cannot train.
    weights_.push_back(add_weight(n, init.shape(), [init](const Shape&, Generator*) { return clone(init); },
                                  is_floating(init.dtype())));
  }
}

Tensor Lambda::forward(const Tensor& x) { return fn_(x, weights_); }

// A registered name; a function made from C++ code cannot be saved.
template <>
struct OptionCodec<FunctionName> {
  static constexpr const char* type = "str";
  static constexpr bool integral = false;
  static nlohmann::json write(const FunctionName& f) {
    STRATA_CHECK(!f.is_code, "wraps an unregistered C++ function, which a saved model cannot hold (it keeps names, "
                             "never code); register it with nn::register_function(\"my_fn\", fn) and build the "
                             "layer from that name");
    return f.name;
  }
  static FunctionName read(const nlohmann::json& j) { return OptionCodec<std::string>::read(j); }
};

// [{"name", "shape", "dtype"}]; read back as zeros (the values are in the weights file).
template <>
struct OptionCodec<LambdaWeights> {
  static constexpr const char* type = "[weight]";
  static constexpr bool integral = false;
  static nlohmann::json write(const LambdaWeights& weights) { return lambda_weights_config(weights); }
  static LambdaWeights read(const nlohmann::json& j) { return lambda_weights_from(j); }
};

// Lambda's and ElementwiseLambda's (nn/layers/merge.hpp).
STRATA_DEFINE_OPTIONS(LambdaOptions, STRATA_LAMBDA_OPTIONS)
STRATA_LAYER("lambda", Lambda);

}  // namespace strata::nn
