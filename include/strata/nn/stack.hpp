// Stack and UnStack (TensorLayer's): join inputs of one shape along a new axis, and split a
// tensor along an axis into the slices that remove it.
#pragma once
#include <vector>

#include "strata/nn/layer.hpp"
#include "strata/nn/options.hpp"

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
