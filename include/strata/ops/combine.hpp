// Combining and rearranging whole tensors: concatenation, stacking, splitting, padding,
// tiling, flipping and rolling. All are differentiable and take any dtype and any strides.
#pragma once
#include <utility>
#include <vector>

#include "strata/core/tensor.hpp"

namespace strata {

// Joins tensors of one rank whose sizes agree except along `axis`; dtypes are promoted.
Tensor concat(const std::vector<Tensor>& tensors, int64_t axis = 0);
// Joins tensors of one shape along a new axis (axis may be -1 for a new last axis).
Tensor stack(const std::vector<Tensor>& tensors, int64_t axis = 0);
// Views of x along `axis` with the given sizes (they must add up to x.size(axis)), or pieces
// of split_size (the last may be smaller). One autograd node for all the pieces.
std::vector<Tensor> split(const Tensor& x, const std::vector<int64_t>& sizes, int64_t axis = 0);
std::vector<Tensor> split(const Tensor& x, int64_t split_size, int64_t axis = 0);
// n pieces as equal as possible (PyTorch's chunk: pieces of ceil(size / n), so maybe fewer than n).
std::vector<Tensor> chunk(const Tensor& x, int64_t n, int64_t axis = 0);

enum class PadMode {
  constant,   // the new elements are `value`
  reflect,    // mirrored about the edge element: [a b c d] by 2 -> c b [a b c d] c b; needs pad < size
  replicate,  // the edge element repeated
};
// Pads the LAST pads.size() axes of x, in axis order: pads[i] = {before, after} for axis
// x.dim() - pads.size() + i. Giving one pair per axis is TensorFlow's tf.pad (TensorLayer's
// PadLayer). Note that PyTorch's F.pad lists the last axis first; this does not.
Tensor pad(const Tensor& x, const std::vector<std::pair<int64_t, int64_t>>& pads, PadMode mode = PadMode::constant,
           double value = 0);
// x repeated reps[d] times along each axis (NumPy's tile: missing leading reps count as 1, extra
// ones add leading axes).
Tensor tile(const Tensor& x, const std::vector<int64_t>& reps);
// x reversed along each of `axes`.
Tensor flip(const Tensor& x, const std::vector<int64_t>& axes);
// x shifted circularly by shifts[i] along axes[i] (element j moves to j + shift). With no axes,
// the flattened tensor is rolled by shifts[0] and reshaped back.
Tensor roll(const Tensor& x, const std::vector<int64_t>& shifts, const std::vector<int64_t>& axes = {});
Tensor roll(const Tensor& x, int64_t shift, int64_t axis);

}  // namespace strata
