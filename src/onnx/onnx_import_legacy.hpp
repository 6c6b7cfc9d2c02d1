// Files of opsets 7 to 10: their nodes rewritten to the definitions of opset 11 before the import
// reads them, the way onnx's version converter adapts a model (onnx/version_converter/convert.h),
// so that the importer follows one definition of each operator. No Python is involved.
#pragma once
#include <cstdint>
#include <string>

#include "onnx_proto.hpp"

namespace strata::onnx::detail {

// The first opset the import reads files of; files of opsets before kAdaptedOpset are adapted.
constexpr int64_t kOldestOpset = 7, kAdaptedOpset = 11;
// The attribute the adapter puts on a nearest Upsample whose scales are computed: the Resize it
// becomes refuses scales below 1 once the import has folded them (onnxruntime rounds up there).
inline constexpr const char* kUpsampleNearest = "strata.upsample_nearest";

// The graph of a file of `opset` (7 to 10) with each node at its opset-11 definition: attributes
// that became inputs (Slice's starts/ends/axes, Pad's pads/value, Clip's min/max, TopK's k) are
// new initializers, BatchNormalization's spatial attribute is dropped (only spatial = 1, the
// opset-9 behaviour, is accepted), Scatter becomes ScatterElements. Anything it cannot adapt,
// and operators ONNX introduced after `opset`, are refused naming the node. The result is read
// as a file of opset 11.
pb::GraphProto adapt_old_graph(const pb::GraphProto& graph, int64_t opset, const std::string& what);

// The opset at which ONNX introduced `op` into the default domain, or kOldestOpset when it is
// older: a node of a later operator in an older file is refused (the file is not valid ONNX).
int64_t first_opset(const std::string& op);

}  // namespace strata::onnx::detail
