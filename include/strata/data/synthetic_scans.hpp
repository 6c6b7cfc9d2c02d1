// A synthetic segmentation set that looks like a medical-imaging task and needs no download:
// single-channel "scans" of a body outline (textured tissue) holding a large bright organ, one
// or two small grainy organs with a brighter rim and a centre at the tissue's mean intensity,
// and (in most scans) a small
// dark lesion inside the large organ, under blur, a smooth intensity drift and noise. Classes
// overlap in intensity, so a per-pixel intensity threshold does not solve it
// (docs/segmentation.md). Each example is a pure function of (seed, index).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "strata/data/dataset.hpp"

namespace strata::data {

struct SyntheticScanOptions {
  int64_t size = 64;               // S: scans are S x S pixels, S in [16, 1024]
  double noise = 0.05;             // Gaussian sigma of the pixel noise (intensities are in [0, 1])
  double drift = 0.25;             // the largest slope of the intensity drift across the scan
  double lesion_probability = 0.7;  // the chance that a scan has a lesion
};

// Class ids of the masks: 0 background (air and body tissue), 1 organ, 2 small organ, 3 lesion.
const std::vector<std::string>& synthetic_scan_classes();

// `size` examples {image float32 [S, S, 1] in [0, 1], mask int64 [S, S] of class ids}.
// Throws strata::Error for size < 0 or options outside their ranges.
Dataset synthetic_scans(int64_t size, uint64_t seed, const SyntheticScanOptions& options = {});

}  // namespace strata::data
