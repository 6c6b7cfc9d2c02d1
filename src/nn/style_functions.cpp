// Functions every program knows by name (nn/functions.hpp), so that a saved model using them
// loads, and `strata serve` runs it, with no user code: "adain", adaptive instance
// normalisation of content features by style features (ops/style.hpp), as an
// ElementwiseLambda of two inputs — how a whole AdaIN style-transfer model is one static model.
#include "strata/core/error.hpp"
#include "strata/nn/functions.hpp"
#include "strata/ops/style.hpp"

namespace strata::nn {
namespace {

const bool kStyleFunctionsRegistered = [] {
  register_function("adain", NamedFn([](const std::vector<Tensor>& xs, const std::vector<Tensor>&) {
                      STRATA_CHECK(xs.size() == 2, "adain: expected two inputs (content and style features), got ", xs.size());
                      return adain(xs[0], xs[1]);
                    }));
  return true;
}();

}  // namespace
}  // namespace strata::nn
