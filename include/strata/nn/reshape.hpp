// Layers that only change shape: Flatten keeps the batch axis; Reshape takes a shape for the
// axes after the batch (-1 inferred).
#pragma once
#include "strata/nn/layer.hpp"
#include "strata/nn/options.hpp"

namespace strata::nn {

#define STRATA_FLATTEN_OPTIONS(X)
STRATA_OPTIONS(FlattenOptions, STRATA_FLATTEN_OPTIONS);

class Flatten : public Layer {
 public:
  using Options = FlattenOptions;
  STRATA_LAYER_MOVABLE(Flatten)
  explicit Flatten(Options options, std::string name = "");
  explicit Flatten(std::string name = "") : Flatten(Options{}, std::move(name)) {}
  const Options& options() const { return options_; }

 protected:
  Tensor forward(const Tensor& x) override;

 private:
  Options options_;
};

#define STRATA_RESHAPE_OPTIONS(X) \
  X(std::vector<int64_t>, shape, {}, at_least(-1), "the shape after the batch axis; one -1: inferred")
STRATA_OPTIONS(ReshapeOptions, STRATA_RESHAPE_OPTIONS);

class Reshape : public Layer {
 public:
  using Options = ReshapeOptions;
  STRATA_LAYER_MOVABLE(Reshape)
  explicit Reshape(Options options, std::string name = "");
  explicit Reshape(Shape shape, std::string name = "") : Reshape(Options{.shape = shape.vec()}, std::move(name)) {}
  const Options& options() const { return options_; }

 protected:
  Tensor forward(const Tensor& x) override;

 private:
  Options options_;
};

}  // namespace strata::nn
