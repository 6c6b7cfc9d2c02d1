// Weight sharing between layers built separately, for a layer that keeps several built copies of
// one network (onnx::ShapePolymorphicModel keeps a static model per set of input sizes): the
// copies' weights are aliases of one master set, and the copies run outside the layer tree, so
// that the layer's weights are the master set alone. Declared apart from layer.hpp, which nearly
// every file includes; defined in layer.cpp.
#pragma once
#include <memory>
#include <vector>

#include "strata/nn/layer.hpp"

namespace strata::nn {

// Makes `alias` (a weight of one copy) another handle on `master` (the same weight of the
// master copy): it reads master's storage, so an optimizer's in-place step on master shows
// through it, and the gradients that reach it in a backward pass accumulate into master's
// .grad() (it shares master's gradient accumulator, hooks included); it requires grad when
// master does. Returns what keeps that link alive: hold it while graphs through `alias` are
// recorded. Cheap (no copy), so it may be repeated before every use, which also follows master
// when its storage is replaced (Layer::to). Throws an Error when the shapes or dtypes differ.
std::shared_ptr<void> alias_weight(const Tensor& alias, const Tensor& master);

// While one lives on a thread, the layers called on that thread have no calling parent: the
// calling layer does not adopt them as children, nor pass them its train/eval mode or device
// (set those on them yourself). For a layer that runs other, separately held layers whose
// weights must not become its own. Restores the call stack when destroyed.
class UnparentedCalls {
 public:
  UnparentedCalls();
  ~UnparentedCalls();
  UnparentedCalls(const UnparentedCalls&) = delete;
  UnparentedCalls& operator=(const UnparentedCalls&) = delete;

 private:
  std::vector<Layer*> saved_;
};

}  // namespace strata::nn
