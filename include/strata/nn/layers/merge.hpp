// Merge layers: concatenation, element-wise combinations of several inputs, stacking and
// unstacking.
// One header per layer family (docs/architecture.md, "nn"); each section below keeps its own notes.
#pragma once
#include <functional>
#include <vector>

#include "strata/nn/lambda.hpp"
#include "strata/nn/layer.hpp"
#include "strata/nn/layers/activation.hpp"
#include "strata/nn/options.hpp"

// Layers that merge several inputs, called with a list: Concat (TensorLayer's Concat) and
// Elementwise (TensorLayer's Elementwise: add, multiply, maximum, minimum, mean or any function).
namespace strata::nn {

#define STRATA_CONCAT_OPTIONS(X) \
  X(int64_t, concat_dim, -1, any(), "the axis to join along, counting the batch axis; -1: the last (channels)")
STRATA_OPTIONS(ConcatOptions, STRATA_CONCAT_OPTIONS);

// concat({a, b}) joins along concat_dim (-1: the channels). After the first call the number of
// inputs and their ranks are fixed.
class Concat : public Layer {
 public:
  using Options = ConcatOptions;
  STRATA_LAYER_MOVABLE(Concat)
  explicit Concat(Options options, std::string name = "");
  explicit Concat(int64_t concat_dim = -1, std::string name = "")
      : Concat(Options{.concat_dim = concat_dim}, std::move(name)) {}
  const Options& options() const { return options_; }

 protected:
  void build_many(const std::vector<Shape>& input_shapes) override;
  Tensor forward_many(const std::vector<Tensor>& xs) override;
  void build(const Shape& input_shape) override;
  Tensor forward(const Tensor& x) override;

 private:
  Options options_;
  size_t n_inputs_ = 0;
  int rank_ = 0;
};

// Elementwise's combine by name: "add", "multiply", "maximum", "minimum" or "mean". One made
// from a C++ function has no name (code()): a model holding it cannot be saved.
struct CombineName {
  CombineName(std::string name = "add") : name(std::move(name)) {}  // NOLINT: implicit by design
  CombineName(const char* name) : name(name) {}                     // NOLINT: implicit by design
  static CombineName code() {
    CombineName c("");
    c.is_code = true;
    return c;
  }
  std::string name;
  bool is_code = false;  // made from a C++ function
};

#define STRATA_ELEMENTWISE_OPTIONS(X)                                                       \
  X(CombineName, combine, "add", one_of({"add", "multiply", "maximum", "minimum", "mean"}), \
    "how the inputs are combined (mean: their sum over their number)")                      \
  X(Activation, act, {}, any(), "applied to the combined inputs: a name (\"relu\") or a function; empty: none")
STRATA_OPTIONS(ElementwiseOptions, STRATA_ELEMENTWISE_OPTIONS);

// act(x0 ∘ x1 ∘ ...) for inputs of one shape; after the first call every input must keep the
// shape it had then, but for the batch axis.
class Elementwise : public Layer {
 public:
  using Options = ElementwiseOptions;
  STRATA_LAYER_MOVABLE(Elementwise)
  using CombineFn = std::function<Tensor(const Tensor&, const Tensor&)>;
  explicit Elementwise(Options options, std::string name = "");
  // combine: "add", "multiply", "maximum", "minimum" or "mean".
  explicit Elementwise(const std::string& combine = "add", Activation act = {}, std::string name = "")
      : Elementwise(Options{.combine = combine, .act = std::move(act)}, std::move(name)) {}
  // Any binary function, folded left over the inputs (TensorLayer's combine_fn).
  explicit Elementwise(CombineFn combine, Activation act = {}, std::string name = "");
  const Options& options() const { return options_; }

 protected:
  void build_many(const std::vector<Shape>& input_shapes) override;
  Tensor forward_many(const std::vector<Tensor>& xs) override;
  void build(const Shape& input_shape) override;
  Tensor forward(const Tensor& x) override;

 private:
  CombineFn fn_;
  Options options_;
  bool mean_ = false;
  std::vector<Shape> shapes_;
};

// Any function of several tensors as a layer (TensorLayer's ElementwiseLambda), with optional
// weights of its own that the function receives and that train with the model:
//   ElementwiseLambda([](auto& xs, auto& w) { return xs[0] * w[0] + xs[1]; }, {{"alpha", ones({1})}})
class ElementwiseLambda : public Layer {
 public:
  using Options = LambdaOptions;  // nn/lambda.hpp
  STRATA_LAYER_MOVABLE(ElementwiseLambda)
  using Fn = std::function<Tensor(const std::vector<Tensor>& xs, const std::vector<Tensor>& weights)>;
  // A registered function by name: the only kind a saved model can hold.
  explicit ElementwiseLambda(Options options, std::string name = "");
  // The weights' values are their initial values (copied at the first call).
  explicit ElementwiseLambda(Fn fn, std::vector<std::pair<std::string, Tensor>> weights = {}, std::string name = "");
  // A function registered with nn::register_function (nn/functions.hpp): a saved model holds
  // its name.
  explicit ElementwiseLambda(const std::string& function, std::vector<std::pair<std::string, Tensor>> weights = {},
                             std::string name = "")
      : ElementwiseLambda(Options{.function = function, .weights = std::move(weights)}, std::move(name)) {}
  const Options& options() const { return options_; }

 protected:
  void build_many(const std::vector<Shape>& input_shapes) override;
  Tensor forward_many(const std::vector<Tensor>& xs) override;
  void build(const Shape& input_shape) override { build_many({input_shape}); }
  Tensor forward(const Tensor& x) override { return forward_many({x}); }

 private:
  Fn fn_;
  Options options_;  // weights: their initial values
  std::vector<Tensor> weights_;
};

}  // namespace strata::nn

// Stack and UnStack (TensorLayer's): join inputs of one shape along a new axis, and split a
// tensor along an axis into the slices that remove it.
namespace strata::nn {

#define STRATA_STACK_OPTIONS(X) X(int64_t, axis, 1, any(), "the new axis, counting the batch axis")
STRATA_OPTIONS(StackOptions, STRATA_STACK_OPTIONS);

// stack({a, b, ...}) along a new `axis` (counting the batch axis; TensorLayer's default 1).
// After the first call the number of inputs is fixed; all must have one shape.
class Stack : public Layer {
 public:
  using Options = StackOptions;
  STRATA_LAYER_MOVABLE(Stack)
  explicit Stack(Options options, std::string name = "");
  explicit Stack(int64_t axis = 1, std::string name = "") : Stack(Options{.axis = axis}, std::move(name)) {}
  const Options& options() const { return options_; }

 protected:
  void build_many(const std::vector<Shape>& input_shapes) override;
  Tensor forward_many(const std::vector<Tensor>& xs) override;
  void build(const Shape& input_shape) override;
  Tensor forward(const Tensor& x) override;

 private:
  Options options_;
  size_t n_inputs_ = 0;
};

// The functional form: the x.size(axis) slices of x along `axis`, each without that axis.
std::vector<Tensor> unstack(const Tensor& x, int64_t axis = 0);

// UnStack has several outputs, so calling it returns a list (dynamic models only: a static
// model's layers have one output; there, use Lambda with nn::unstack(x, axis)[i]).
class UnStack : public Layer {
 public:
  STRATA_LAYER_MOVABLE(UnStack)
  explicit UnStack(int64_t axis = 0, std::string name = "");
  std::vector<Tensor> operator()(const Tensor& x) const { return unstack(x, axis_); }

 protected:
  Tensor forward(const Tensor& x) override;  // throws: UnStack returns a list

 private:
  int64_t axis_;
};

}  // namespace strata::nn
