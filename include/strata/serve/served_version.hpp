// ServedVersion: one version of a hub model, loaded and ready to answer inference requests:
// its input and output signatures (for metadata and request checks) and one copy of the model
// per batch worker, because a model's layers keep per-call state and must not run on two
// threads at once. Immutable once loaded but for its statistics; requests hold it by shared_ptr,
// so a newer version can replace it while they finish on this one.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "strata/core/shape.hpp"
#include "strata/hub/hub.hpp"
#include "strata/nn/model.hpp"
#include "strata/serve/model_statistics.hpp"

namespace strata::serve {

// A tensor a model takes or gives: the shape has -1 for the batch axis.
struct TensorSignature {
  std::string name;
  DType dtype = kFloat32;
  Shape shape;
  bool operator==(const TensorSignature&) const = default;
};

struct ServedVersion {
  std::string name;
  int64_t version = 0;
  std::vector<TensorSignature> inputs, outputs;
  std::vector<std::shared_ptr<nn::Model>> replicas;  // one per batch worker, in eval mode
  mutable ModelStatistics statistics;                // what the requests for it did (GET .../stats)
};

// Loads `version` (hub::kLatest: the newest) of the static model `name` with `replicas` copies.
// Throws strata::Error naming the model when it is not a static model whose inputs all have a
// batch axis (-1 first).
std::shared_ptr<const ServedVersion> load_served_version(hub::Hub& hub, const std::string& name, int64_t version,
                                                         int replicas);

}  // namespace strata::serve
