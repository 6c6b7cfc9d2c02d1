// The body of an Open Inference Protocol v2 infer response: {"model_name", "model_version", "id",
// "outputs": [{"name", "datatype", "shape", "data"}]}, and with the binary tensor data extension
// the outputs asked for as binary follow the JSON, each announced by parameters.binary_data_size.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "strata/core/tensor.hpp"
#include "strata/serve/infer_request.hpp"

namespace strata::serve {

struct InferResponse {
  std::string body;
  std::optional<size_t> json_length;  // set when binary data follows: the Inference-Header-Content-Length
};

// `outputs`: what the model gave for `request`, in the model's output order.
InferResponse encode_infer_response(const ServedVersion& model, const InferRequest& request,
                                    const std::vector<Tensor>& outputs);

}  // namespace strata::serve
