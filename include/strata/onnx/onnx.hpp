// ONNX, the exchange format serving stacks and most frameworks read (docs/interop.md).
// Static models (nn::Model) go out as ONNX graphs of opset 17 and ONNX graphs (opsets 11 to 28)
// come back in as static models, through Debian's libonnx proto library; protobuf stays inside src/onnx.
//
//   onnx::save_onnx(net, "net.onnx");           // or net.export_onnx("net.onnx")
//   auto back = onnx::load_onnx("net.onnx");    // a static model; back->run({x})
//
// Export keeps Strata's channels-last layout at the graph's inputs and outputs (an image input
// stays [N, H, W, C]) and transposes around the channels-first ONNX operators inside; dropout
// and noise layers are the identity (inference). A layer with no ONNX form is refused with an
// Error naming it and its class. Import reads the operators export writes (and what PyTorch's
// exporter and the onnx helper API write for the same layers); an ONNX file is hostile input:
// unknown operators are refused by name, sizes are bounded and initializers checked against
// their dims.
#pragma once
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "strata/nn/model.hpp"

namespace strata::onnx {

// The ONNX operator set exports are written for.
inline constexpr int64_t kOpset = 17;

// The model as a serialized ONNX ModelProto.
std::string to_onnx(const nn::Model& model);
void save_onnx(const nn::Model& model, const std::string& path);

// A static model computing what the ONNX graph computes (its first input and output first).
// `what` names the bytes in errors.
std::shared_ptr<nn::Model> from_onnx(const std::string& bytes, const std::string& what = "ONNX model");
std::shared_ptr<nn::Model> load_onnx(const std::string& path);

// Sizes for the inputs' symbolic axes, by their ONNX name (dim_param): a static model fixes every
// size but the first axis's (the batch), so an input with a symbolic sequence length or image
// size imports at the size given here, and without one is refused naming the input, the axis and
// its name. {"height": 224, "width": 224}. onnx::load_onnx_any_size (onnx/shape_polymorphic.hpp)
// runs such a model at whatever sizes its inputs come with.
struct ImportOptions {
  std::map<std::string, int64_t> sizes;
};
std::shared_ptr<nn::Model> from_onnx(const std::string& bytes, const std::string& what, const ImportOptions& options);
std::shared_ptr<nn::Model> load_onnx(const std::string& path, const ImportOptions& options);

// The ONNX operators (default domain) the import reads, sorted, with the opsets at which it
// reads them; docs/interop.md lists them.
struct ImportedOperator {
  std::string name;
  int64_t first_opset, last_opset;
};
std::vector<ImportedOperator> imported_operators();

}  // namespace strata::onnx
