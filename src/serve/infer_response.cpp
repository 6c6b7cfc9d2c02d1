#include "strata/serve/infer_response.hpp"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "strata/serve/datatype.hpp"

namespace strata::serve {
namespace {

nlohmann::json json_data(const Tensor& tensor) {
  return dispatch_all(tensor.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* values = tensor.data<T>();
    return nlohmann::json(std::vector<T>(values, values + tensor.numel()));
  });
}

}  // namespace

InferResponse encode_infer_response(const ServedVersion& model, const InferRequest& request,
                                    const std::vector<Tensor>& outputs) {
  nlohmann::json response = {{"model_name", model.name}, {"model_version", std::to_string(model.version)}};
  if (!request.id.empty()) response["id"] = request.id;
  std::string binary;
  nlohmann::json entries = nlohmann::json::array();
  for (const RequestedOutput& wanted : request.outputs) {
    const Tensor tensor = outputs.at(wanted.index).contiguous();
    nlohmann::json entry = {{"name", model.outputs[wanted.index].name},
                            {"datatype", datatype_name(tensor.dtype())},
                            {"shape", tensor.shape().vec()}};
    if (wanted.binary) {
      entry["parameters"] = {{"binary_data_size", tensor.nbytes()}};
      binary.append(static_cast<const char*>(tensor.raw_data()), tensor.nbytes());
    } else {
      entry["data"] = json_data(tensor);
    }
    entries.push_back(std::move(entry));
  }
  response["outputs"] = std::move(entries);
  // A model's name from the hub may hold bytes that are not UTF-8: U+FFFD in the answer, not a 500.
  InferResponse encoded{response.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace), std::nullopt};
  if (std::any_of(request.outputs.begin(), request.outputs.end(), [](const RequestedOutput& o) { return o.binary; })) {
    encoded.json_length = encoded.body.size();
    encoded.body += binary;
  }
  return encoded;
}

}  // namespace strata::serve
