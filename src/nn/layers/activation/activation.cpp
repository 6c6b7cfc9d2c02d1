#include "strata/nn/layers/activation.hpp"

#include <cstring>
#include <map>

#include "strata/nn/functions.hpp"
#include "strata/ops/elementwise.hpp"
#include "strata/ops/softmax.hpp"

namespace strata::nn {

Tensor relu(const Tensor& x) { return strata::relu(x); }
Tensor tanh(const Tensor& x) { return strata::tanh(x); }
Tensor sigmoid(const Tensor& x) { return strata::sigmoid(x); }
Tensor softmax(const Tensor& x) { return strata::softmax(x, -1); }
Tensor leaky_relu(const Tensor& x) { return strata::leaky_relu(x, 0.2); }

Activation::Activation(Tensor (*fn)(const Tensor&)) : fn_(fn) {
  static const std::pair<Tensor (*)(const Tensor&), const char*> known[] = {{nn::relu, "relu"},
                                                                            {nn::tanh, "tanh"},
                                                                            {nn::sigmoid, "sigmoid"},
                                                                            {nn::softmax, "softmax"},
                                                                            {nn::leaky_relu, "lrelu0.2"}};
  for (auto& [f, n] : known)
    if (f == fn) name_ = n;
}

Activation::Activation(const char* name) {
  std::string n = name ? name : "";
  if (n.empty() || n == "linear" || n == "identity" || n == "none") return;
  name_ = n;
  // "lrelu" or "leaky_relu" optionally followed by the slope: "lrelu0.2".
  for (const char* prefix : {"leaky_relu", "lrelu"}) {
    if (n.rfind(prefix, 0) == 0) {
      std::string rest = n.substr(std::strlen(prefix));
      double slope = 0.2;
      if (!rest.empty()) {
        size_t used = 0;
        try {
          slope = std::stod(rest, &used);
        } catch (const std::exception&) {
          used = 0;
        }
        STRATA_CHECK(used == rest.size() && used > 0, "activation '", n, "': '", rest, "' is not a slope");
      }
      fn_ = [slope](const Tensor& x) { return strata::leaky_relu(x, slope); };
      return;
    }
  }
  // The op list's activations (core/unary_ops.hpp), softmax and Keras's name for silu.
  static const std::map<std::string, ActivationFn> named = [] {
    std::map<std::string, ActivationFn> m = {{"softmax", nn::softmax},
                                             {"swish", [](const Tensor& x) { return strata::silu(x); }}};
    for (const UnaryFunction& u : unary_functions())
      if (u.activation) m.emplace(u.name, u.fn);
    return m;
  }();
  auto it = named.find(n);
  if (it == named.end() && has_function(n)) {
    fn_ = [f = find_function(n)](const Tensor& x) { return f({x}, {}); };
    return;
  }
  if (it == named.end()) {
    std::string known;
    for (auto& [k, v] : named) known += (known.empty() ? "" : ", ") + k;
    throw Error("unknown activation '" + n + "' (known: linear, lrelu<slope>, " + known +
                ", or a name given to nn::register_function)");
  }
  fn_ = it->second;
}

}  // namespace strata::nn
