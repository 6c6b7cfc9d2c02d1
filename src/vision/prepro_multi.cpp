// One affine map applied to an image, its mask, boxes and key points, each pixel target with its
// own interpolation (TensorLayer's *_multi forms take one order for every image).
#include "strata/core/error.hpp"
#include "strata/vision/prepro.hpp"

namespace strata::vision {

MultiTargets affine_transform_multi(const MultiTargets& in, const Affine& transform,
                                    const TargetInterpolation& interpolation) {
  STRATA_CHECK(in.image.defined() && in.image.dim() == 3, "affine_transform_multi: expected an HWC image, got ",
               in.image.defined() ? in.image.shape().str() : std::string("an undefined tensor"));
  const int64_t h = in.image.size(0), w = in.image.size(1);
  STRATA_CHECK(!in.mask.defined() ||
                   ((in.mask.dim() == 2 || in.mask.dim() == 3) && in.mask.size(0) == h && in.mask.size(1) == w),
               "affine_transform_multi: expected a 2-D or HWC mask of the image's ", h, " x ", w, ", got ",
               in.mask.shape().str());
  const AnnotatedImage moved = affine_transform(AnnotatedImage{in.image, in.boxes, in.points}, transform,
                                                interpolation.image, interpolation.image_fill);
  MultiTargets out{moved.image, Tensor(), moved.boxes, moved.points};
  if (in.mask.defined()) {
    const Tensor hwc = in.mask.dim() == 2 ? in.mask.reshape({h, w, 1}) : in.mask;
    out.mask = affine_transform(hwc, transform, interpolation.mask, interpolation.mask_fill).reshape(in.mask.shape());
  }
  return out;
}

MultiTargets random_affine_transform_multi(const MultiTargets& in, const AffineRanges& ranges, Generator& gen,
                                           const TargetInterpolation& interpolation) {
  return affine_transform_multi(in, random_affine(ranges, gen), interpolation);
}

}  // namespace strata::vision
