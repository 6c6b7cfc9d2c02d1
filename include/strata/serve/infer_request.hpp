// The body of an Open Inference Protocol v2 infer request, decoded and checked against the
// model it is for: JSON tensors ({"name", "datatype", "shape", "data": flat, row-major}) and the
// binary tensor data extension (the JSON header is the first Inference-Header-Content-Length
// bytes; each input with parameters.binary_data_size takes that many bytes, in input order, from
// what follows). Everything in it is hostile: every refusal is a RequestError 400 naming the
// input and what was expected.
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "strata/core/tensor.hpp"
#include "strata/serve/served_version.hpp"

namespace strata::serve {

struct RequestedOutput {
  size_t index;  // into ServedVersion::outputs
  bool binary;   // as binary data after the JSON header, rather than a JSON "data" array
};

struct InferRequest {
  std::string id;                        // echoed in the response when given
  std::vector<Tensor> inputs;            // in the model's input order, each with the same batch size
  std::vector<RequestedOutput> outputs;  // what to answer with, in the order asked for
};

// `json_length`: the Inference-Header-Content-Length header's value when present, else the whole
// body is JSON. Each thread keeps the last header it read whose inputs were all binary, and
// reuses what it read for the same header bytes against a model of the same inputs and outputs;
// the binary data is taken and checked afresh each time.
InferRequest parse_infer_request(std::string_view body, std::optional<size_t> json_length, const ServedVersion& model);

}  // namespace strata::serve
