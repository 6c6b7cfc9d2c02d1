// TensorLayer 2.2.5's prepro tools that data/image.hpp does not cover: box coordinate
// conversions and darknet annotation text, gamma/illumination/pixel drop, binary and grey
// morphology, contours and point maps, swirl and projective warps, key points for pose data,
// one transform applied to an image with its mask, boxes and key points, and
// process_sequences. Each function says which TensorLayer (or scikit-image, Pillow, OpenCV)
// computation it reproduces; tests/vision/test_prepro_*.cpp compare them with TensorLayer's own
// output (fixtures from tests/vision/make_tl_prepro_fixtures.py; docs/data.md, "TensorLayer's
// prepro tools"). Images are HWC tensors as in data/image.hpp unless a function says 2-D.
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "strata/core/factory.hpp"
#include "strata/core/tensor.hpp"
#include "strata/vision/annotations.hpp"

namespace strata::vision {

// ---- Box coordinates (TensorLayer's obj_box_coord_*) --------------------------------------------
// A box as TensorLayer passes it: four numbers whose meaning the function's name gives
// (x = column, y = row; "upleft" is [x, y, w, h], "upleft_butright" [x1, y1, x2, y2], "centroid"
// [x_center, y_center, w, h]). height and width are the image's, in pixels, and must be positive.
using BoxCoord = std::array<double, 4>;

// [x, y, w, h] in pixels -> fractions of the image: x and w divided by width, y and h by height.
BoxCoord obj_box_coord_rescale(const BoxCoord& coord, int64_t height, int64_t width);
std::vector<BoxCoord> obj_box_coords_rescale(const std::vector<BoxCoord>& coords, int64_t height, int64_t width);
// The reverse: [x, y, x2 (or w), y2 (or h)] fractions -> pixels, each truncated toward zero as
// Python's int() does.
BoxCoord obj_box_coord_scale_to_pixelunit(const BoxCoord& coord, int64_t height, int64_t width);
// [xc, yc, w, h] -> [x1, y1, x2, y2]; to_int truncates each toward zero (Python's int()).
BoxCoord obj_box_coord_centroid_to_upleft_butright(const BoxCoord& coord, bool to_int = false);
BoxCoord obj_box_coord_upleft_butright_to_centroid(const BoxCoord& coord);  // [x1, y1, x2, y2] -> [xc, yc, w, h]
BoxCoord obj_box_coord_centroid_to_upleft(const BoxCoord& coord);           // [xc, yc, w, h] -> [x, y, w, h]
BoxCoord obj_box_coord_upleft_to_centroid(const BoxCoord& coord);           // [x, y, w, h] -> [xc, yc, w, h]

// ---- Darknet annotation text (parse_darknet_ann_str_to_list, parse_darknet_ann_list_to_cls_box) --
// One box per line, "class x y w h" (darknet's fractions of the image, centre and size). Lines are
// split on '\n' and whitespace; as in TensorLayer, a line without exactly five fields is skipped.
// A line with five fields must hold an integer class and four numbers (Python's int() and float()
// spellings: optional sign, decimals, exponents, inf, nan), else strata::Error naming the line.
struct DarknetAnnotations {
  std::vector<int64_t> classes;
  std::vector<BoxCoord> boxes;  // [x, y, w, h] as written, one per class
};
DarknetAnnotations parse_darknet_annotations(std::string_view text);

// ---- Colour: gamma, illumination, pixel drop ----------------------------------------------------
// scikit-image's exposure.adjust_gamma, which TensorLayer's brightness calls: uint8 images go
// through its table, min(rint(255 gain (i / 255)^gamma), 255); float images become gain x^gamma
// (the values must be >= 0). gamma and gain must be >= 0. Any rank, dtype kept.
Tensor adjust_gamma(const Tensor& image, double gamma, double gain = 1);

// TensorLayer's illumination with fixed values: adjust_gamma(image, gamma), then Pillow's
// ImageEnhance.Contrast(contrast) and Color(saturation), in Pillow's integer arithmetic (grey
// levels L = (19595 R + 38470 G + 7471 B + 2^15) >> 16, blends truncated to uint8). A uint8 HWC
// image with 1 or 3 channels, or a 2-D grey image. contrast and saturation must be >= 0.
Tensor illumination(const Tensor& image, double gamma, double contrast, double saturation);
// TensorLayer's illumination(is_random=True): one of brighter (gamma from [gamma.first, 1)),
// darker ([1, gamma.second)) or unchanged, each a third of the time, then contrast and saturation
// factors drawn uniformly from their ranges.
struct IlluminationRanges {
  std::array<double, 2> gamma{0.5, 1.5}, contrast{1, 1}, saturation{1, 1};
};
Tensor random_illumination(const Tensor& image, const IlluminationRanges& ranges, Generator& gen = default_generator());

// TensorLayer's drop: each pixel kept with probability keep, else set to 0 in every channel
// (one draw per pixel of an HWC image; one per element of a 2-D or 1-D array). keep in [0, 1].
Tensor drop(const Tensor& image, double keep, Generator& gen = default_generator());

// ---- Morphology with a disk (scikit-image's morphology with footprint disk(radius)) -------------
// On a 2-D image. The disk holds the offsets (dy, dx) with dy^2 + dx^2 <= radius^2 (radius >= 0).
// Pixels outside the image take no part (scikit-image's border values and reflect mode give the
// same for a disk). Binary forms read nonzero as true and return bool; grey forms keep the dtype.
Tensor disk(int64_t radius);  // the footprint, uint8 [2r + 1, 2r + 1], as skimage.morphology.disk
Tensor binary_dilation(const Tensor& image, int64_t radius = 3);
Tensor binary_erosion(const Tensor& image, int64_t radius = 3);
Tensor dilation(const Tensor& image, int64_t radius = 3);  // the maximum over the disk
Tensor erosion(const Tensor& image, int64_t radius = 3);   // the minimum over the disk

// ---- Contours (TensorLayer's find_contours, i.e. skimage.measure.find_contours) and pt2map -------
using ContourPoint = std::array<double, 2>;  // (row, column)
enum class ContourSide { low, high };
// The iso-lines at `level` of a 2-D image (at least 2 x 2; values at pixel centres, linearly
// interpolated along square edges; squares touching a NaN are skipped), in scikit-image's order.
// fully_connected: which side's pixels count as diagonally connected where a square is ambiguous.
// positive_orientation: low puts the values below the level on the left of each contour (closed
// ones wind counter-clockwise around low islands); high reverses every contour. A closed contour
// repeats its first point at the end.
std::vector<std::vector<ContourPoint>> find_contours(const Tensor& image, double level,
                                                     ContourSide fully_connected = ContourSide::low,
                                                     ContourSide positive_orientation = ContourSide::low);

// A float64 map of shape [rows, cols], zero but for `value` at every (row, col) point of every
// list, each coordinate rounded half to even (NumPy's round). A point outside the map is an error
// (TensorLayer's NumPy indexing would wrap negative ones around).
Tensor pt2map(const std::vector<std::vector<ContourPoint>>& lists, int64_t rows, int64_t cols, double value = 1);

// ---- Warps: swirl and projective transform by points ----------------------------------------------
// A 2-D or HWC image (uint8, float32 or float64; dtype kept, uint8 rounded) resampled bilinearly
// at the source place of each output pixel (pixel centres at integer coordinates), neighbours
// outside the image reading `fill`, then clipped to the input's value range (widened to `fill`
// where the output reaches it): scikit-image's warp(order=1, mode="constant", clip=True).
// Differences from TensorLayer: it divides images with values above 1 by their maximum (swirl,
// then multiplies back) or by 255 (projective_transform_by_points, and returns the [0, 1] image);
// here values keep their units, so `fill` is in the image's units too. Computed in double.
using ProjectivePoint = std::array<double, 2>;  // (x, y) = (column, row)
// The homography (3 x 3, row-major, [2][2] = 1) taking src[i] to dst[i], as skimage's
// ProjectiveTransform.estimate finds it (normalised direct linear transform, least squares for
// more than 4 pairs). 4 to 4096 pairs; coinciding or collinear points are an error.
std::array<double, 9> estimate_projective(const std::vector<ProjectivePoint>& src,
                                          const std::vector<ProjectivePoint>& dst);
// The image moved so that what was at src[i] lands at dst[i] (TensorLayer's
// projective_transform_by_points with order=1).
Tensor projective_transform_by_points(const Tensor& image, const std::vector<ProjectivePoint>& src,
                                      const std::vector<ProjectivePoint>& dst, double fill = 0);

// skimage.transform.swirl: output pixel (x, y) at distance rho from the centre shows the input at
// the same distance, turned by rotation + strength exp(-rho ln 2 / (radius / 5)) (radians; the
// turn falls to 1/1000 of strength at `radius`).
struct SwirlOptions {
  std::optional<std::array<double, 2>> center;  // (x, y); the image's middle (W / 2, H / 2) by default
  double strength = 1, radius = 100, rotation_degrees = 0;
};
Tensor swirl(const Tensor& image, const SwirlOptions& options = {}, double fill = 0);

// ---- Key points for pose data (TensorLayer's keypoint_*) ----------------------------------------
// Joints are (x, y) = (column, row) pixels; TensorLayer marks a missing joint (-1000, -1000) and
// treats any coordinate below -100 as missing.
using KeypointXY = std::array<double, 2>;
// An image (2-D or HWC), its mask (2-D or HWC of the same height and width; optional) and the
// joints of each person in it.
struct KeypointImage {
  Tensor image, mask;
  std::vector<std::vector<KeypointXY>> people;
};
// COCO's 19 parts as OpenPose orders them: joint k of the flipped person is joint flip_list[k]
// of the original, so left and right swap.
inline const std::vector<int64_t> kCocoFlipList = {0, 1, 5, 6, 7, 2, 3, 4, 11, 12, 13, 8, 9, 10, 15, 14, 17, 16, 18};
// Image and mask mirrored left-right; joints reordered by flip_list and moved to x' = width - x
// (TensorLayer's formula, which maps pixel centres one pixel right of the mirrored pixel's);
// joints off the picture (x < 1 or x > width - 1 or y outside [0, height - 1]) become missing.
KeypointImage keypoint_flip(const KeypointImage& in, const std::vector<int64_t>& flip_list = kCocoFlipList);
// keypoint_flip when a uniform draw is >= prob, else the input (TensorLayer's rule).
KeypointImage keypoint_random_flip(const KeypointImage& in, double prob = 0.5,
                                   const std::vector<int64_t>& flip_list = kCocoFlipList,
                                   Generator& gen = default_generator());

// OpenCV's resize with INTER_AREA (computed in double; uint8 rounded): when shrinking on both
// axes each output pixel averages the input area it covers; otherwise OpenCV's area-mode linear
// interpolation. 2-D or HWC; dtype kept.
Tensor resize_area(const Tensor& image, int64_t height, int64_t width);
// TensorLayer's keypoint_random_resize_shortestedge with its random zoom given: the short edge
// becomes int(int(min(W r + 0.5, H r + 0.5)) zoom) pixels, r = min(min_width / W, min_height / H)
// (resize_area on image and mask), then, where the result is smaller than the minimum size, the
// image is padded (centred, the odd pixel bottom/right) with pad_value per channel (zeros if
// empty) and the mask with 1. A grey image becomes 3 channels first. Joints scale as
// int(x s + 0.5) plus the padding.
KeypointImage keypoint_resize_shortestedge(const KeypointImage& in, int64_t min_height = 368, int64_t min_width = 368,
                                           double zoom = 1, const std::vector<double>& pad_value = {});

// ---- One transform for an image and its targets (TensorLayer's *_multi forms) ------------------
// An image with what must move with it: a mask (2-D or HWC, same height and width; optional),
// boxes and key points (data/annotations.hpp's coordinates).
struct MultiTargets {
  Tensor image, mask;
  std::vector<Box> boxes;
  std::vector<Point> points;
};
// How each target is resampled: a label mask must stay nearest (no blended class ids).
struct TargetInterpolation {
  Interpolation image = Interpolation::bilinear, mask = Interpolation::nearest;
  double image_fill = 0, mask_fill = 0;
};
// The same affine map on all of them (affine_transform for the pixels, transform_box and
// transform_point for the labels), each pixel target with its own interpolation and fill.
MultiTargets affine_transform_multi(const MultiTargets& in, const Affine& transform,
                                    const TargetInterpolation& interpolation = {});
// One random_affine drawn for all the targets (TensorLayer's rotation_multi, shift_multi, ... with
// is_random, composed into one resampling).
MultiTargets random_affine_transform_multi(const MultiTargets& in, const AffineRanges& ranges,
                                           Generator& gen = default_generator(),
                                           const TargetInterpolation& interpolation = {});

// ---- Sequences (TensorLayer's process_sequences) -------------------------------------------------
// In each sequence, the first end_id becomes pad_val (kept when remain_end_id) and so does all
// that follows it; with is_shorten every sequence is then cut to the largest position of a first
// end_id (plus one when remain_end_id). As in TensorLayer, when no sequence holds end_id that
// length is 0 (1 with remain_end_id), so shortening empties them.
std::vector<std::vector<int64_t>> process_sequences(std::vector<std::vector<int64_t>> sequences, int64_t end_id = 0,
                                                    int64_t pad_val = 0, bool is_shorten = true,
                                                    bool remain_end_id = false);

}  // namespace strata::vision
