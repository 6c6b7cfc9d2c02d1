// An ONNX file parsed and checked once, then imported as static models at as many sets of sizes as
// asked (load_onnx imports it once; onnx::ShapePolymorphicModel once per set of input sizes).
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "onnx_proto.hpp"
#include "strata/nn/model.hpp"

namespace strata::onnx::detail {

struct ParsedOnnx {
  ::onnx::ModelProto proto;
  ::onnx::GraphProto adapted;  // the graph at opset 11's definitions, for files of opsets 7 to 10
  int64_t opset = 0;           // the file's version of the default domain
  bool is_adapted = false;
  std::string name;  // the graph's, or "onnx_model"

  // The graph the import reads, and the opset it reads it at.
  ::onnx::GraphProto& graph() { return is_adapted ? adapted : *proto.mutable_graph(); }
  const ::onnx::GraphProto& graph() const { return is_adapted ? adapted : proto.graph(); }
  int64_t import_opset() const;
};

// The bytes of an ONNX file, bounded by protobuf's 2 GiB.
std::string read_onnx_file(const std::string& path);
// Parses and checks the model's opsets (and adapts a file of opsets 7 to 10); `what` names the
// bytes in errors.
std::unique_ptr<ParsedOnnx> parse_onnx(const std::string& bytes, const std::string& what);
// A static model of the parsed graph, its symbolic axes past the batch at `sizes`.
std::shared_ptr<nn::Model> import_parsed(const ParsedOnnx& parsed, const std::string& what,
                                         const std::map<std::string, int64_t>& sizes);

}  // namespace strata::onnx::detail
